! Fortran expressions of issue 18: unary * and &, base prefixes, .xor., type names, casts,
! sizeof, floor/ceiling/modulo, shape of a scalar, two-argument associated, KIND arguments.
program expr_more
  implicit none
  integer, target :: x = 5
  integer, pointer :: p => null()
  integer, target :: arr(3) = (/1,2,3/)
  integer, target :: grid(2:4, 0:1)
  integer, pointer :: pa(:) => null()
  real :: r = 2.5
  real(kind=8) :: d = -7.25d0
  logical :: a = .true., b = .false.
  grid = 7
  p => x
  pa => arr
  print *, x, r, d, a, b, grid(2,0)
end program
