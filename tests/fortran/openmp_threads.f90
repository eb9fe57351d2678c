! compilers: gfortran flang
! fflags: -fopenmp
! env: OMP_NUM_THREADS=2
! OpenMP: a breakpoint hit in the second thread of a parallel region; the outlined region
! (`omp_threads::MAIN__._omp_fn.0`, `_QQmain..omp_par`) as that thread's caller frame, shared
! variables (an array and a scalar) read through the region's argument by their source names,
! and a variable of the program the region does not use (not on this thread's stack).
program omp_threads
  use omp_lib
  implicit none
  integer :: a(8), k, total
  real(kind=8) :: scale
  a = 0
  k = 5
  total = 0
  scale = 2.5d0
  !$omp parallel shared(a, k, scale) reduction(+:total) num_threads(2)
  if (omp_get_thread_num() == 1) then
     a(3) = k
     call mark(total)
  end if
  total = total + 1
  !$omp end parallel
  print *, total, a(3), scale
end program omp_threads

subroutine mark(t)
  integer :: t
  t = t + 1
end subroutine mark
