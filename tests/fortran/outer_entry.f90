! compilers: gfortran flang
! A procedure that hosts an internal procedure, at its entry breakpoint: gfortran stores the
! dummy v into the frame (for the host association) after the address gdb 13 stops at, so gdb
! reads v through a null pointer there. Program as module_procs.f90.
module mymod
  implicit none
  integer :: calls = 0
contains
  subroutine proc(x)
    integer, intent(inout) :: x
    calls = calls + 1
    x = x * 2
  end subroutine proc
  integer function twice(y)
    integer, intent(in) :: y
    twice = 2 * y
  end function twice
end module mymod

subroutine outer(v)
  implicit none
  integer, intent(inout) :: v
  v = v + 1
  call inner()
contains
  subroutine inner()
    v = v + 100
  end subroutine inner
end subroutine outer

program outer_entry
  use mymod
  implicit none
  integer :: a = 5
  call proc(a)
  a = twice(a)
  call outer(a)
  a = a - 1
end program outer_entry
