!mod$ v1 sum:16926e6158e5007d
module shapes
type::vec
integer(4)::n
real(4)::w(1_8:2_8)
end type
integer(4)::counter
real(8),allocatable::empty(:)
contains
subroutine show(a,b,s)
integer(4),intent(in)::a(-2_8:3_8,0_8:4_8)
real(8),intent(inout)::b(:)
character(*,1),intent(in)::s
end
end
