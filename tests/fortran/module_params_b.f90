! The second unit of module_params (same as modules_use_b.f90): modules defined in another unit.
module geometry
  implicit none
  real(kind=8), parameter :: pi = 3.14159265358979d0
  integer, parameter :: ndim = 3
  real(kind=8) :: origin(3) = [1d0, 2d0, 3d0]
  integer :: counter = 7
  integer :: hidden = 99
contains
  subroutine bump(k)
    integer, intent(in) :: k
    counter = counter + k
  end subroutine bump
  real(kind=8) function area(r)
    real(kind=8), intent(in) :: r
    area = pi * r * r
  end function area
end module geometry

module settings
  implicit none
  integer :: level = 4
  character(len=8) :: mode = 'fast'
  logical :: verbose = .true.
end module settings
