module calc
  implicit none
contains
  integer function twice(n)
    integer, intent(in) :: n
    twice = 2 * n
  end function twice
  real(kind=8) function half(x)
    real(kind=8), intent(in) :: x
    half = x / 2
  end function half
end module calc

program funcs
  use calc
  implicit none
  integer :: r, i
  real(kind=8) :: h
  do i = 1, 3
     r = twice(i)
  end do
  h = half(5d0)
  print *, r, h
end program funcs
