module shapes
  implicit none
  type :: vec
     integer :: n
     real :: w(2)
  end type vec
  integer :: counter = 7
  real(kind=8), allocatable :: empty(:)
contains
  subroutine show(a, b, s)
    integer, intent(in) :: a(-2:3, 0:4)
    real(kind=8), intent(inout) :: b(:)
    character(len=*), intent(in) :: s
    counter = counter + a(-2, 0) + int(b(1))
    print *, s, counter                       ! line 15
  end subroutine show
end module shapes

program basics
  use shapes
  implicit none
  integer :: m(-2:3, 0:4)
  real(kind=8) :: v(12)
  integer(kind=1) :: i1 = -5
  integer(kind=2) :: i2 = 300
  integer(kind=8) :: i8 = 123456789012_8
  real(kind=4) :: r4 = 1.5
  logical(kind=1) :: l1 = .true.
  complex(kind=8) :: c8 = (2.5d0, -1d0)
  character(len=10) :: word = 'hi'
  type(vec) :: pt
  integer :: i, j
  do j = 0, 4
     do i = -2, 3
        m(i, j) = 10 * i + j
     end do
  end do
  v = 0
  v(3) = 1.25d0
  pt%n = 3
  pt%w = [0.5, 0.25]
  call show(m, v, word)
  print *, i1, i2, i8, r4, l1, c8, pt%n
end program basics
