! compilers: gfortran flang
! Deferred-length character scalars (allocatable and pointer) and components, their len(),
! and character(kind=4): gdb 13 shows pointers or raw bytes for them. Program as strings.f90.
module strmod
  implicit none
  type :: named
     character(len=:), allocatable :: label
     integer :: n
  end type named
contains
  subroutine take(s, t)
    character(len=*), intent(in) :: s
    character(len=*), intent(in) :: t
    integer :: l
    l = len(s) + len(t)
  end subroutine take
end module strmod

program strings_deferred
  use strmod
  implicit none
  character(len=10) :: fixed = 'hello'
  character(len=:), allocatable :: dyn
  character(len=:), pointer :: pdyn
  character(len=6), target :: tgt = 'target'
  character(kind=4, len=5) :: wide
  type(named) :: nm
  dyn = 'deferred string'
  pdyn => tgt
  wide = 4_'wide!'
  nm%label = 'component'
  nm%n = 9
  call take(fixed, dyn)
end program strings_deferred
