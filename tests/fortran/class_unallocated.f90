! compilers: gfortran flang
! Polymorphic objects without data: an unallocated class(t), allocatable prints
! <not allocated> and a disassociated class(t), pointer <not associated> (gdb 13 prints
! gfortran's raw _data/_vptr container, and flang's null pointer with its type), then the
! allocated one by its dynamic type. `keep` makes flang describe `circle` in its DWARF.
module m
  implicit none
  type :: shape
     integer :: id = 0
  end type shape
  type, extends(shape) :: circle
     real :: r = 1.5
  end type circle
end module m

program class_unallocated
  use m
  implicit none
  class(shape), allocatable :: a, b
  class(shape), pointer :: p => null()
  type(circle) :: keep
  keep%r = 2.0
  allocate(circle :: b)
  b%id = 3
  print *, allocated(a), associated(p), b%id, keep%r
end program class_unallocated
