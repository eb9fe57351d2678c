! compilers: gfortran flang
! An external procedure broken on by its linkage name, with the trailing underscore the
! compilers add (ext_add_), then by its source name in any case.
subroutine ext_add(a, b)
  implicit none
  integer, intent(inout) :: a
  integer, intent(in) :: b
  a = a + b
end subroutine ext_add

program external_underscore
  implicit none
  integer :: s
  s = 1
  call ext_add(s, 41)
  call ext_add(s, 2)
  print *, s
end program external_underscore
