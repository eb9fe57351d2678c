! compilers: gfortran
! real(16) arithmetic at full binary128 precision: the program's own results (computed by
! gfortran in real(16)) are the reference. gdb 13 rounds a real(16) operand to long double
! (x87, 64 bits) before arithmetic, so this case is hand-expected.
program real16_arith
  implicit none
  real(kind=16) :: q, third, tenth, tiny_sum, prod, mixed
  real(kind=10) :: e
  q = 1.25_16
  e = 2.5_10
  third = q / 3
  tenth = q * 0.1d0
  tiny_sum = q + 1.0d-20
  prod = e * q / 7
  mixed = e / 7 * q
  print *, third, tenth, tiny_sum, prod, mixed
end program real16_arith
