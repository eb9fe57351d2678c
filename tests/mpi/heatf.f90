! heatf: main program (see heatf_mod.f90). Prints one line from rank 0 at the end.
program heatf
  use mpi
  use heat_fields
  implicit none
  type(field) :: temp
  integer :: ierr, rank, it, iters
  real(8) :: res

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  iters = 10
  res = 0d0
  call field_init(temp, 4, 3, MPI_COMM_WORLD)
  do it = 1, iters
     call exchange_halo(temp)
     res = global_residual(temp)
  end do
  if (rank == 0) print '(a, i0, a, es12.5)', 'heatf: ', iters, ' iterations, residual ', res
  call field_free(temp)
  call MPI_Finalize(ierr)
end program heatf
