! compilers: gfortran flang
! Parameters of procedures (gfortran: DW_TAG_constant in the procedure; flang-22 emits none):
! by name, from an internal procedure through host association, in `info locals` (integer
! ones only, as gdb: a parameter whose value is given as bytes is not listed).
program params_local
  implicit none
  integer, parameter :: np = 4
  real(kind=8), parameter :: half = 0.5d0
  integer :: x
  x = np * 2
  call sub(x)
contains
  subroutine sub(y)
    integer :: y
    integer, parameter :: inner_p = 7
    y = y + inner_p + np
  end subroutine sub
end program params_local
