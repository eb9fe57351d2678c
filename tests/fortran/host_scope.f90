! Issue 18: break on the program's symbol MAIN__ (gfortran), a procedure's locals as
! PROCEDURE::VARIABLE from an internal procedure's frame.
subroutine outer(n, total)
  implicit none
  integer :: n, total
  integer :: k
  k = n * 2
  call inner(k)
contains
  subroutine inner(m)
    integer :: m
    total = total + m
  end subroutine
end subroutine

program host_scope
  implicit none
  integer :: total = 0
  call outer(4, total)
  print *, total
end program
