! compilers: gfortran flang
! Assumed-size sections and the whole (a clear message), assumed-rank dummies whole: gdb 13
! fails on them. Program as arrays_dummy.f90.
module dummies
  implicit none
contains
  subroutine shaped(x)
    integer, intent(inout) :: x(0:, 5:)
    x(0, 5) = x(0, 5) + 1
  end subroutine shaped
  subroutine sized(y, n)
    integer, intent(in) :: n
    integer, intent(inout) :: y(*)
    y(n) = y(n) + 1
  end subroutine sized
  subroutine ranked(z)
    integer, intent(in) :: z(..)
    integer :: r
    r = rank(z)
  end subroutine ranked
end module dummies

program assumed_size_rank
  use dummies
  implicit none
  integer :: g(3, 2)
  integer :: i
  g = reshape([(i, i = 1, 6)], [3, 2])
  call shaped(g)
  call sized(g, 4)
  call ranked(g)
end program assumed_size_rank
