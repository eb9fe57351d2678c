!mod$ v1 sum:3ad1c9f8c28323de
module geo
type::point
real(4)::x=0._4
real(4)::y=0._4
end type
type,extends(point)::point3
real(4)::z=0._4
end type
type::holder
integer(4),allocatable::vals(:)
integer(4)::tag
end type
end
