! compilers: gfortran flang
! fflags: -fopenmp
! env: OMP_NUM_THREADS=1
! OpenMP: an outlined parallel region; shared variables by their source names.
program openmp_shared
  use omp_lib
  implicit none
  integer :: total, n
  real(kind=8) :: scale
  integer :: i
  total = 0
  n = 8
  scale = 1.5d0
  !$omp parallel do shared(n, scale) reduction(+:total) private(i)
  do i = 1, n
     total = total + int(i * scale)
  end do
  !$omp end parallel do
  n = total
end program openmp_shared
