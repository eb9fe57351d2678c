! -O2: assumed-shape dummies receiving array sections (strided rows, a column, a slice of a
! slice), module procedures with scalars in registers.
module grid_ops
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  function row_sum(v) result(s)
    real(dp), intent(in) :: v(:)
    real(dp) :: s
    integer :: k
    s = 0
    do k = 1, size(v)
      s = s + v(k)
    end do
  end function row_sum

  subroutine scale(v, f)
    real(dp), intent(inout) :: v(:)
    real(dp), intent(in) :: f
    v = v * f
  end subroutine scale

  subroutine smooth(a, w)
    real(dp), intent(inout) :: a(:, :)
    real(dp), intent(in) :: w
    integer :: i, j
    do j = 2, size(a, 2) - 1
      do i = 2, size(a, 1) - 1
        a(i, j) = (1 - w) * a(i, j) + w * 0.25_dp * (a(i-1, j) + a(i+1, j) + a(i, j-1) + a(i, j+1))
      end do
    end do
  end subroutine smooth
end module grid_ops

program o2_sections
  use grid_ops
  implicit none
  integer, parameter :: n = 5
  real(dp), allocatable :: g(:, :)
  real(dp) :: t
  integer :: i, j
  allocate(g(n, n))
  do j = 1, n
    do i = 1, n
      g(i, j) = i + 10 * j
    end do
  end do
  t = row_sum(g(2, :))
  t = t + row_sum(g(3, 2:4))
  call scale(g(:, 3), 2.0_dp)
  call scale(g(1, 1:5:2), 0.5_dp)
  call smooth(g(2:4, 2:4), 0.5_dp)
  print *, t, g(3, 3)
end program o2_sections
