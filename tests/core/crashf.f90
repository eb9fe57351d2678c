module state
  implicit none
  integer :: steps = 7
  real(8) :: grid(3, 2)
end module state

program crashf
  use state
  implicit none
  integer :: vec(4)
  integer, pointer :: p
  integer :: i
  vec = [(i * i, i = 1, 4)]
  grid = reshape([1d0, 2d0, 3d0, 4d0, 5d0, 6d0], [3, 2])
  nullify(p)
  call work(4)
contains
  subroutine work(n)
    integer, intent(in) :: n
    integer :: total
    total = sum(vec(1:n)) + steps
    p = total
    vec(1) = total
  end subroutine work
end program crashf
