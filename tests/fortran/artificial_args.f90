! compilers: gfortran flang
! Hidden dummy arguments (the length of character(len=*) dummies, which gfortran flags
! artificial) are still shown as arguments: bt, info args, finish.
module art
  implicit none
contains
  subroutine greet(who, times)
    character(len=*), intent(in) :: who
    integer, intent(in) :: times
    integer :: k
    k = times * len(who)
  end subroutine greet
  integer function count_chars(a, b)
    character(len=*), intent(in) :: a, b
    count_chars = len(a) + len(b)
  end function count_chars
end module art

program artificial_args
  use art
  implicit none
  integer :: c
  call greet('world', 3)
  c = count_chars('ab', 'cde')
end program artificial_args
