! compilers: gfortran flang
! Modules from another unit (modules_use_b.f90): use, use only, rename (a => b), mod::name,
! parameters, info modules / info module variables / info module functions.
program modules_use
  use geometry
  use settings, only: lvl => level, mode
  implicit none
  real(kind=8) :: r
  call bump(3)
  r = area(2d0)
  lvl = lvl + 1
  r = r + origin(2)
end program modules_use
