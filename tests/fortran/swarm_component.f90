! compilers: gfortran flang
! Component selection over an array of derived types (swarm%id, swarm%pos(2)): gdb 13 says
! "Attempt to extract a component of a value that is not a structure."
module swarm_mod
  implicit none
  type :: particle
     real(kind=8) :: pos(3)
     integer :: id
  end type particle
end module swarm_mod

program swarm_component
  use swarm_mod
  implicit none
  type(particle) :: swarm(4)
  integer :: i
  do i = 1, 4
     swarm(i)%pos = [dble(i), 2d0 * i, 3d0 * i]
     swarm(i)%id = 100 + i
  end do
  i = 0
end program swarm_component
