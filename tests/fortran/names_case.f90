! compilers: gfortran flang
! Case-insensitive names: procedures, modules, module variables, dummies and locals in any
! case (the program is module_procs.f90).
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

program names_case
  use mymod
  implicit none
  integer :: a = 5
  call proc(a)
  a = twice(a)
  call outer(a)
  a = a - 1
end program names_case
