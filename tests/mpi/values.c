/* Values that differ across ranks (issue 20's `compare`): rank 3's residual is NaN. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double residual = rank == 3 ? NAN : (rank < 2 ? 1.5 : 2.5);
    int cells = rank * 10;
    printf("rank %d %g %d\n", rank, residual, cells);
    MPI_Finalize();
    return 0;
}
