! compilers: gfortran
! Module parameters (DW_TAG_constant in gfortran; flang-22 emits none for them), by plain
! name through use and as mod::name. Units as in modules_use.
program module_params
  use geometry
  use settings, only: lvl => level, mode
  implicit none
  real(kind=8) :: r
  call bump(3)
  r = area(2d0)
  lvl = lvl + 1
  r = r + origin(2)
end program module_params
