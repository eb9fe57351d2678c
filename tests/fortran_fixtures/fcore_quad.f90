program quad
  implicit none
  real(kind=16) :: x = 1.5_16
  complex(kind=16) :: z = (1.5_16, -0.25_16)
  x = x / 3
  print *, x, z                             ! line 6
end program quad
