! compilers: gfortran flang
! gdb 13's element limit and repeats together on Fortran arrays: every element counts towards
! `print elements`, runs of equal elements or sub-arrays cut where the limit falls, and a 3-D
! array whose repeated planes count by the next dimension only.
program array_limits
  implicit none
  integer :: a(100), b(30), c(3,20), e(2,3,12)
  a = 7
  b = 1
  b(1) = 5
  b(2) = 5
  c = 2
  c(1,1) = 9
  e = 4
  e(1,1,1) = 8
  print *, a(1), b(1), c(1,1), e(1,1,1)
end program array_limits
