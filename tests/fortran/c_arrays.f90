! C arrays (c_arrays_c.c, a C unit of the program) printed from a Fortran frame: gdb shows
! them in Fortran's syntax, with C's lower bound 0 and the last C dimension first.
program c_arrays
  implicit none
  integer :: k
  k = 3
  print *, k
end program c_arrays
