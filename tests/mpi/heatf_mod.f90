! heatf: a 1-D decomposed Jacobi heat solver in Fortran 90, in the style of the public
! mini-apps, for the MPI differential test (cli/tests/mpi_apps.rs). The module holds the
! field type (allocatable components), the halo exchange through MPI_Sendrecv and the
! global residual through MPI_Allreduce.
module heat_fields
  use mpi
  implicit none
  private
  public :: field, field_init, field_free, exchange_halo, sweep, global_residual

  type field
     integer :: nx = 0, ny = 0
     integer :: comm = MPI_COMM_NULL
     integer :: rank = -1, south = MPI_PROC_NULL, north = MPI_PROC_NULL
     real(8) :: h = 0d0
     real(8), allocatable :: u(:,:)
     real(8), allocatable :: unew(:,:)
     character(len=8) :: name = 'heat'
  end type field

contains

  subroutine field_init(fld, nx, ny, comm)
    type(field), intent(inout) :: fld
    integer, intent(in) :: nx, ny, comm
    integer :: size, ierr, i
    fld%comm = comm
    call MPI_Comm_rank(comm, fld%rank, ierr)
    call MPI_Comm_size(comm, size, ierr)
    fld%nx = nx
    fld%ny = ny
    fld%h = 1d0 / (nx + 1)
    if (fld%rank > 0) fld%south = fld%rank - 1
    if (fld%rank < size - 1) fld%north = fld%rank + 1
    ! Columns 0 and ny+1 are the halo; the hot wall is the last rank's north boundary. The
    ! interior starts at a different temperature on each rank.
    allocate(fld%u(0:nx+1, 0:ny+1), fld%unew(0:nx+1, 0:ny+1))
    fld%u = 0d0
    fld%u(1:nx, 1:ny) = 0.25d0 * fld%rank
    if (fld%north == MPI_PROC_NULL) then
       do i = 0, nx + 1
          fld%u(i, ny+1) = 1d0 + i * fld%h
       end do
    end if
    fld%unew = fld%u
  end subroutine field_init

  subroutine exchange_halo(fld)
    type(field), intent(inout) :: fld
    integer :: n, ierr
    n = fld%nx + 2
    ! Columns are contiguous: last interior column north, first interior column south.
    call MPI_Sendrecv(fld%u(:, fld%ny), n, MPI_DOUBLE_PRECISION, fld%north, 1, &
         fld%u(:, 0), n, MPI_DOUBLE_PRECISION, fld%south, 1, fld%comm, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(fld%u(:, 1), n, MPI_DOUBLE_PRECISION, fld%south, 2, &
         fld%u(:, fld%ny+1), n, MPI_DOUBLE_PRECISION, fld%north, 2, fld%comm, &
         MPI_STATUS_IGNORE, ierr)
  end subroutine exchange_halo

  function sweep(fld) result(diff)
    type(field), intent(inout) :: fld
    real(8) :: diff, d
    integer :: i, j
    diff = 0d0
    do j = 1, fld%ny
       do i = 1, fld%nx
          fld%unew(i, j) = 0.25d0 * (fld%u(i-1, j) + fld%u(i+1, j) &
               + fld%u(i, j-1) + fld%u(i, j+1))
          d = fld%unew(i, j) - fld%u(i, j)
          diff = diff + d * d
       end do
    end do
    fld%u(1:fld%nx, 1:fld%ny) = fld%unew(1:fld%nx, 1:fld%ny)
  end function sweep

  function global_residual(fld) result(res)
    type(field), intent(inout) :: fld
    real(8) :: res, local, total
    integer :: ierr
    local = sweep(fld)
    total = 0d0
    call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, fld%comm, ierr)
    res = sqrt(total)
  end function global_residual

  subroutine field_free(fld)
    type(field), intent(inout) :: fld
    deallocate(fld%u, fld%unew)
  end subroutine field_free

end module heat_fields
