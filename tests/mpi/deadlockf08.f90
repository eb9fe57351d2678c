! A deadlock through the mpi_f08 module (issue 20's diagnose): both ranks receive before
! they send; no ierror arguments (they are optional in mpi_f08).
program deadlockf08
  use mpi_f08
  implicit none
  integer :: rank, inb, outb
  type(MPI_Status) :: st
  outb = 1
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Recv(inb, 1, MPI_INTEGER, 1 - rank, 7, MPI_COMM_WORLD, st)
  call MPI_Send(outb, 1, MPI_INTEGER, 1 - rank, 7, MPI_COMM_WORLD)
  call MPI_Finalize()
end program deadlockf08
