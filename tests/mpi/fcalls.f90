! Every Fortran binding the MPI call recorder wraps, on 3 ranks, with results every rank
! checks (issue 20): the recorder must pass each call on unchanged. Prints "calls ok" or
! which call went wrong.
program fcalls
  use mpi
  implicit none
  integer :: rank, n, ierr, i, left, right, got, root
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2), req(2), idx
  integer :: a(3), b(3), s, flag
  logical :: ok
  ok = .true.
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  left = mod(rank + n - 1, n)
  right = mod(rank + 1, n)
  ! Send/Recv around the ring, even ranks first.
  if (mod(rank, 2) == 0) then
    call MPI_Send(rank, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
    call MPI_Recv(got, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
  else
    call MPI_Recv(got, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
    call MPI_Ssend(rank, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
  end if
  if (got /= left .or. st(MPI_SOURCE) /= left) call fail('send/recv')
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, right, 2, got, 1, MPI_INTEGER, left, 2, &
                    MPI_COMM_WORLD, st, ierr)
  if (got /= left) call fail('sendrecv')
  call MPI_Irecv(got, 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, sts, ierr)
  if (got /= left .or. req(1) /= MPI_REQUEST_NULL) call fail('isend/irecv/waitall')
  call MPI_Irecv(got, 1, MPI_INTEGER, left, 4, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, right, 4, MPI_COMM_WORLD, ierr)
  call MPI_Wait(req(1), st, ierr)
  if (got /= left) call fail('wait')
  call MPI_Irecv(got, 1, MPI_INTEGER, left, 5, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, ierr)
  call MPI_Waitany(1, req, idx, st, ierr)
  if (got /= left .or. idx /= 1) call fail('waitany')
  call MPI_Send(rank, 1, MPI_INTEGER, right, 6, MPI_COMM_WORLD, ierr)
  call MPI_Probe(left, 6, MPI_COMM_WORLD, st, ierr)
  call MPI_Recv(got, 1, MPI_INTEGER, st(MPI_SOURCE), 6, MPI_COMM_WORLD, st, ierr)
  if (got /= left) call fail('probe')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  root = 1
  got = -1
  if (rank == root) got = 42
  call MPI_Bcast(got, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  if (got /= 42) call fail('bcast')
  call MPI_Reduce(rank, s, 1, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  if (rank == root .and. s /= n * (n - 1) / 2) call fail('reduce')
  call MPI_Allreduce(rank, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (s /= n * (n - 1) / 2) call fail('allreduce')
  a = rank
  call MPI_Alltoall(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (any(b(1:n) /= [(i, i = 0, n - 1)])) call fail('alltoall')
  call MPI_Allgather(rank, 1, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (any(b(1:n) /= [(i, i = 0, n - 1)])) call fail('allgather')
  b = -1
  call MPI_Gather(rank, 1, MPI_INTEGER, b, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  if (rank == root .and. any(b(1:n) /= [(i, i = 0, n - 1)])) call fail('gather')
  a = [(10 * i, i = 0, 2)]
  call MPI_Scatter(a, 1, MPI_INTEGER, got, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  if (got /= 10 * rank) call fail('scatter')
  flag = 0
  if (ok) flag = 1
  call MPI_Allreduce(flag, s, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  if (s == 1) print '(a)', 'calls ok'
  call MPI_Finalize(ierr)
contains
  subroutine fail(what)
    character(*), intent(in) :: what
    print '(a, i0, 2a)', 'rank ', rank, ' wrong: ', what
    ok = .false.
  end subroutine fail
end program fcalls
