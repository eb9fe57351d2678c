! Where launched ranks of a Fortran program are first shown, and where `run` brings them
! back: each rank prints its rank and the job's size.
program fstart
  use mpi
  implicit none
  integer :: ierr, rank, nprocs
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  print '(a,i0,a,i0)', 'rank ', rank, ' of ', nprocs
  call MPI_Finalize(ierr)
end program fstart
