module dmod
  integer :: gm = 4
contains
  subroutine leaf(k)
    integer, intent(inout) :: k
    integer :: lv
    lv = k * 2
    k = lv + gm
  end subroutine leaf
end module dmod
program display_scope
  use dmod
  integer :: v
  v = 3
  call leaf(v)
  call leaf(v)
  print *, v
end program display_scope
