! compilers: gfortran
! Runtime-sized explicit-shape dummies: their bounds are computed in the prologue; at the
! procedure's entry breakpoint gdb 13 reads them before they are set and shows garbage. gfortran
! only: flang-22 describes b with a location list that starts after the entry.
module rb
  implicit none
contains
  subroutine fill(n, m, b)
    integer, intent(in) :: n, m
    integer, intent(inout) :: b(n, m)
    b(n, m) = -1
  end subroutine fill
end module rb

program runtime_bounds_entry
  use rb
  implicit none
  integer :: grid(3, 2)
  integer :: i
  grid = reshape([(i, i = 1, 6)], [3, 2])
  call fill(3, 2, grid)
end program runtime_bounds_entry
