! compilers: gfortran flang
! gdb's `max-value-size` (65536 bytes by default) applied to Fortran arrays: a whole array or a
! section whose outermost dimension spans more is refused, in `print`, `output` and
! `info locals`; smaller sections print; `set max-value-size` moves the limit.
program max_value_size
  implicit none
  real(kind=8), allocatable :: a(:, :)
  integer :: s(200, 100)
  integer :: i, j
  allocate(a(100, 100))
  do j = 1, 100
     do i = 1, 100
        a(i, j) = i + 100 * (j - 1)
     end do
  end do
  s = 7
  s(1:100, :) = int(a)
  i = 0
end program max_value_size
