! compilers: gfortran flang
! Deferred-length character arrays (character(len=:), allocatable :: names(:)): DWARF leaves
! the length opaque and gdb 13 cannot show them.
program deferred_char_array
  implicit none
  character(len=:), allocatable :: names(:)
  integer :: n
  allocate(character(len=5) :: names(3))
  names(1) = 'alpha'
  names(2) = 'beta'
  names(3) = 'gamma'
  n = size(names)
end program deferred_char_array
