! compilers: gfortran flang
! Intrinsics and Fortran operators in expressions: lbound ubound shape size rank allocated
! associated kind loc abs mod cmplx, .eq. .ne. .lt. .and. .or. .not. **, set var on array
! elements. (len, real, aimag/imag and pointer arithmetic, which gdb 13 gets wrong:
! intrinsics_extra.)
module intr_vars
  implicit none
  integer :: arr(-1:3, 2:4)
  real(kind=8), allocatable :: al(:)
  integer, pointer :: ptr => null()
  integer, target :: t = 12
  complex :: z = (3.0, -4.0)
  integer :: k = -17
  real :: x = 2.5
  character(len=7) :: word = 'fortran'
  logical :: yes = .true.
end module intr_vars

program intrinsics
  use intr_vars
  implicit none
  arr = 1
  allocate(al(3))
  al = [1d0, 2d0, 3d0]
  ptr => t
  k = k + 0
end program intrinsics
