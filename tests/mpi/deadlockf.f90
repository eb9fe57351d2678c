! A deadlock in Fortran (issue 20's diagnose): both ranks receive before they send.
program deadlockf
  use mpi
  implicit none
  integer :: rank, ierr, inb, outb
  integer :: st(MPI_STATUS_SIZE)
  outb = 1
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Recv(inb, 1, MPI_INTEGER, 1 - rank, 7, MPI_COMM_WORLD, st, ierr)
  call MPI_Send(outb, 1, MPI_INTEGER, 1 - rank, 7, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program deadlockf
