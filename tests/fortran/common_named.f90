! compilers: gfortran flang
! info common NAME: gdb 13 answers "No common block" for gfortran. Program as common_equiv.f90.
subroutine setup()
  implicit none
  integer :: ia, ib
  real :: rx(3)
  common /blk1/ ia, ib, rx
  double precision :: dd
  common /blk2/ dd
  ia = 1
  ib = 2
  rx = [0.5, 1.5, 2.5]
  dd = 9.75d0
end subroutine setup

program common_named
  implicit none
  integer :: ia, ib
  real :: rx(3)
  common /blk1/ ia, ib, rx
  integer :: words(2)
  integer(kind=8) :: whole
  equivalence (words, whole)
  call setup()
  words(1) = 5
  words(2) = 1
  ia = ia + whole
end program common_named
