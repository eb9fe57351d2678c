! compilers: gfortran flang
! use, only: with a rename (lvl => level): the local name and the only-list name are visible,
! the original name is not (gdb 13 finds neither lvl nor mode). Units as in modules_use.
program module_rename
  use geometry
  use settings, only: lvl => level, mode
  implicit none
  real(kind=8) :: r
  call bump(3)
  r = area(2d0)
  lvl = lvl + 1
  r = r + origin(2)
end program module_rename
