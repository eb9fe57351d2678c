! compilers: gfortran flang
! Scalars of every kind: logical(1|2|4|8), complex(4|8), real(4|8), integer(1|2|4|8)
! (module variables, so that neither compiler drops them). real(10) and real(16): see
! scalars_real_ext (gfortran only).
module kinds_mod
  implicit none
  logical(kind=1) :: l1 = .true.
  logical(kind=2) :: l2 = .false.
  logical(kind=4) :: l4 = .true.
  logical(kind=8) :: l8 = .false.
  complex(kind=4) :: c4 = (1.0, -2.0)
  complex(kind=8) :: c8 = (0.5d0, 3.25d0)
  real(kind=4) :: r4 = 1.5
  real(kind=8) :: r8 = -2.75d0
  integer(kind=1) :: i1 = -7
  integer(kind=2) :: i2 = 300
  integer(kind=4) :: i4 = -100000
  integer(kind=8) :: i8 = 123456789012_8
end module kinds_mod

program scalars_kinds
  use kinds_mod
  implicit none
  i4 = i4 + 1
  r8 = r8 * 2
end program scalars_kinds
