! compilers: gfortran flang
! Allocatable arrays (not allocated, then allocated with lower bounds), pointer arrays (not
! associated, then associated with a strided target section).
program arrays_alloc_ptr
  implicit none
  integer, allocatable :: al(:, :)
  real, allocatable :: empty(:)
  integer, target :: base(12)
  integer, pointer :: p(:) => null()
  integer, pointer :: q(:) => null()
  integer :: i
  base = [(100 + i, i = 1, 12)]
  i = 1
  allocate(al(0:2, 3:4))
  al = reshape([1, 2, 3, 4, 5, 6], [3, 2])
  p => base(2:12:3)
  q => base
  i = 2
end program arrays_alloc_ptr
