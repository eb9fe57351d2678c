! compilers: gfortran flang
! Derived types: nested components a%b%c, arrays of derived types, allocatable and pointer
! components, ptype.
module shapes
  implicit none
  type :: inner_t
     integer :: c
     real :: w(2)
  end type inner_t
  type :: mid_t
     type(inner_t) :: b
     integer :: tag
  end type mid_t
  type :: outer_t
     type(mid_t) :: a
     real(kind=8), allocatable :: vals(:)
     integer, pointer :: link => null()
     integer, allocatable :: none(:)
  end type outer_t
end module shapes

program derived_nested
  use shapes
  implicit none
  type(outer_t) :: o
  type(inner_t) :: pts(3)
  integer, target :: tgt = 42
  integer :: i
  o%a%b%c = 11
  o%a%b%w = [1.5, 2.5]
  o%a%tag = 3
  allocate(o%vals(2:4))
  o%vals = [10d0, 20d0, 30d0]
  o%link => tgt
  do i = 1, 3
     pts(i)%c = i * 5
     pts(i)%w = [real(i), -real(i)]
  end do
  i = 0
end program derived_nested
