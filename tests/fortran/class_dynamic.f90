! compilers: gfortran flang
! Polymorphic class(...) variables shown with their dynamic type and its components
! (gdb 13 shows the raw _data/_vptr descriptor for gfortran).
module shapes_poly
  implicit none
  type :: shape
     integer :: id
  end type shape
  type, extends(shape) :: circle
     real :: radius
  end type circle
  type, extends(shape) :: rect
     real :: w, h
  end type rect
contains
  subroutine describe(s)
    class(shape), intent(in) :: s
    integer :: k
    k = s%id
  end subroutine describe
end module shapes_poly

program class_dynamic
  use shapes_poly
  implicit none
  class(shape), allocatable :: a
  type(circle) :: c
  type(rect) :: r
  c%id = 1
  c%radius = 2.5
  r%id = 2
  r%w = 3.0
  r%h = 4.0
  allocate(a, source=r)
  call describe(c)
  call describe(a)
end program class_dynamic
