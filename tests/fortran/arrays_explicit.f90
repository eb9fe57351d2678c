! compilers: gfortran flang
! Explicit-shape arrays with any lower bounds: elements, sections with strides, whole arrays
! in column-major order, ptype with bounds, set var on an element.
program arrays_explicit
  implicit none
  integer :: m(-2:3, 0:4)
  real(kind=8) :: a(5, 4)
  integer :: v(10)
  integer :: i, j
  do j = 0, 4
     do i = -2, 3
        m(i, j) = i * 10 + j
     end do
  end do
  do j = 1, 4
     do i = 1, 5
        a(i, j) = i + j / 10d0
     end do
  end do
  v = [(i * i, i = 1, 10)]
  i = 0
end program arrays_explicit
