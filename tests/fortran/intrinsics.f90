! compilers: gfortran flang
! Intrinsics and Fortran operators in expressions: lbound ubound shape size rank allocated
! associated len kind loc abs mod real aimag cmplx, .eq. .ne. .lt. .and. .or. .not. **,
! set var on an array element.
program intrinsics
  implicit none
  integer :: arr(-1:3, 2:4)
  real(kind=8), allocatable :: al(:)
  integer, pointer :: ptr
  integer, target :: t = 12
  complex :: z = (3.0, -4.0)
  integer :: k = -17
  real :: x = 2.5
  character(len=7) :: word = 'fortran'
  logical :: yes = .true.
  arr = 1
  allocate(al(3))
  al = [1d0, 2d0, 3d0]
  ptr => t
  k = k + 0
end program intrinsics
