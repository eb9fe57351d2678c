! compilers: gfortran flang
! Printing arrays: `set print elements` / `set print repeats` on Fortran arrays, strided and
! reversed sections of allocatable and pointer arrays (also a section of a strided pointer),
! `set var` on elements of allocatable and pointer arrays, ptype of sections,
! repeated sub-arrays, and a large array printed whole.
program arrays_print
  implicit none
  real(kind=8), allocatable :: big(:, :)
  integer, allocatable :: rep(:, :)
  integer, target :: base(20)
  integer, pointer :: p(:)
  integer :: i, j
  allocate(big(40, 30))
  do j = 1, 30
     do i = 1, 40
        big(i, j) = i + 1000 * (j - 1) + 0.125d0
     end do
  end do
  allocate(rep(0:3, 6))
  rep = 7
  rep(:, 4) = [1, 2, 3, 4]
  base = [(i * 3, i = 1, 20)]
  p => base(2:20:3)
  i = 0
end program arrays_print
