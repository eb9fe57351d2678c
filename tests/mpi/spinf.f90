! A barrier hang in Fortran (issue 20's diagnose): rank 1 computes for ever in a module
! procedure before the barrier the others wait in.
module relaxation
  implicit none
contains
  subroutine relax(x)
    double precision, intent(inout) :: x
    do; x = x * 0.5d0 + 1.0d0; end do
  end subroutine relax
end module relaxation

program spinf
  use mpi
  use relaxation
  implicit none
  integer :: rank, ierr
  double precision :: x
  x = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 1) call relax(x)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program spinf
