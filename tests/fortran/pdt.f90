! compilers: gfortran
! Parameterised derived types (kind and len parameters).
module pdt_mod
  implicit none
  type :: vec(k, n)
     integer, kind :: k = 4
     integer, len :: n
     real(kind=k) :: v(n)
  end type vec
end module pdt_mod

program pdt
  use pdt_mod
  implicit none
  type(vec(8, 3)) :: a
  a%v = [1d0, 2d0, 3d0]
  a%v(2) = 5d0
end program pdt
