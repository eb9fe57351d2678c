! A Fortran program linked with a C unit (case_fold_c.c) whose globals are named in upper or
! mixed case: gdb matches a Fortran name in any case only against Fortran units; a C unit's
! `QTAB` is found as a minimal (ELF) symbol of unknown type.
program case_fold
  implicit none
  integer :: k
  k = 3
  print *, k
end program case_fold
