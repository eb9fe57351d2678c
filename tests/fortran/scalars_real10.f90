! compilers: gfortran
! real(10) (x87 extended precision) exists only in gfortran; flang has no kind 10.
program scalars_real10
  implicit none
  real(kind=10) :: e = 2.5_10
  complex(kind=10) :: ce = (1.5_10, -0.25_10)
  e = e * 3
  ce = ce * 2
end program scalars_real10
