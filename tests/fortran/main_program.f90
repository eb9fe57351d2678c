! compilers: gfortran flang
! Language detection, the main program under its source name (gfortran MAIN__ / flang
! _QQmain), break on the program, case-insensitive names, external procedure (trailing
! underscore in the symbol table).
subroutine ext_sub(n, total)
  integer, intent(in) :: n
  integer, intent(inout) :: total
  total = total + n * 10
end subroutine ext_sub

program Main_Prog
  implicit none
  integer :: CountIt = 3
  integer :: total = 0
  real :: Scale = 2.5
  call ext_sub(CountIt, total)
  total = total + 1
  Scale = Scale * 2
end program Main_Prog
