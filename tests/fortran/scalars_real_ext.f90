! compilers: gfortran
! real(10) (x87 extended) and real(16) (binary128): gfortran only; flang-22 has no kind 10
! and rejects kind 16 on this target.
module ext_kinds
  implicit none
  real(kind=10) :: e = 2.5_10
  complex(kind=10) :: ce = (1.5_10, -0.25_10)
  real(kind=16) :: q = 1.25_16
  complex(kind=16) :: cq = (0.5_16, 2_16)
end module ext_kinds

program scalars_real_ext
  use ext_kinds
  implicit none
  e = e * 3
  q = q * 2
end program scalars_real_ext
