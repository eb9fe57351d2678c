program repeats
  implicit none
  real(kind=8) :: x = 1.5_8
  real(kind=10) :: y = 2.25_10
  complex(kind=4) :: z = (1.5, -0.25)
  character(len=20) :: pad = 'ab'
  integer :: a(25), m(2, 12), i
  real :: w(300)
  a = 0
  a(1) = 1
  a(25) = 2
  m = 7
  m(1,1) = 1
  do i = 1, 300
     w(i) = i
  end do
  x = x / 3
  print *, x, y, z, pad, a, m, w(1)         ! line 18
end program repeats
