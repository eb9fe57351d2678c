! compilers: gfortran flang
! Extended types: parent components by their own names (q%x where x belongs to the parent
! type), and the parent component itself (q%point).
module ext_mod
  implicit none
  type :: point
     real :: x, y
  end type point
  type, extends(point) :: point3
     real :: z
  end type point3
  type, extends(point3) :: tagged
     integer :: tag
  end type tagged
end module ext_mod

program parent_component
  use ext_mod
  implicit none
  type(point3) :: q
  type(tagged) :: t
  q%x = 1.5
  q%y = -2.0
  q%z = 4.0
  t%point3 = q
  t%tag = 7
  q%z = q%z + 1
end program parent_component
