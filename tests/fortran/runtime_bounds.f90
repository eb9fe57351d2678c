! compilers: gfortran
! Runtime-sized explicit-shape dummies b(n, m) and c(0:n) after the prologue (gdb is right
! there; at the entry breakpoint it is not: runtime_bounds_entry). gfortran only: flang-22 at
! -O0 describes n, m and the bounds with location lists that end before this line.
module rbb
  implicit none
contains
  subroutine fill(n, m, b, c)
    integer, intent(in) :: n, m
    integer, intent(inout) :: b(n, m)
    real, intent(inout) :: c(0:n)
    b(n, m) = -1
    c(0) = 0.5
  end subroutine fill
end module rbb

program runtime_bounds
  use rbb
  implicit none
  integer :: grid(3, 2)
  real :: line(4)
  integer :: i
  grid = reshape([(i, i = 1, 6)], [3, 2])
  line = [1.5, 2.5, 3.5, 4.5]
  call fill(3, 2, grid, line)
end program runtime_bounds
