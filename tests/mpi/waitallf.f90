! A deadlock through requests in Fortran (issue 20's diagnose): every rank posts receives
! from both neighbours and waits for them all before it sends anything.
program waitallf
  use mpi
  implicit none
  integer :: rank, nranks, ierr
  integer :: inb(2), req(2), st(MPI_STATUS_SIZE, 2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call MPI_Irecv(inb(1), 1, MPI_INTEGER, mod(rank + nranks - 1, nranks), 3, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Irecv(inb(2), 1, MPI_INTEGER, mod(rank + 1, nranks), 3, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, st, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, mod(rank + 1, nranks), 3, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program waitallf
