module geo
  implicit none
  type :: point
     real :: x = 0, y = 0
  end type point
  type, extends(point) :: point3
     real :: z = 0
  end type point3
  type :: holder
     integer, allocatable :: vals(:)
     integer :: tag
  end type holder
end module geo

program more
  use geo
  implicit none
  type(point3) :: q
  type(holder) :: h
  integer, target :: t(10)
  integer, pointer :: p(:) => null()
  integer, pointer :: ps(:) => null()
  real(kind=8), allocatable :: big(:,:)
  integer :: i
  q%x = 1; q%y = 2; q%z = 3
  h%tag = 5
  allocate(h%vals(3))
  h%vals = [7, 8, 9]
  do i = 1, 10
     t(i) = i * i
  end do
  p => t
  ps => t(2:10:3)
  allocate(big(3, 2))
  big = 1.5d0
  print *, q%z, h%tag, p(1), ps(1)          ! line 36
end program more
