! compilers: gfortran flang
! `start` stops in the main program (gdb's main_name: DW_AT_main_subprogram), not in the C
! `main` the compiler wraps it in.
subroutine bump(n)
  integer, intent(inout) :: n
  n = n + 1
end subroutine bump

program Start_Here
  implicit none
  integer :: k = 41
  call bump(k)
  print *, k
end program Start_Here
