/* Values that differ across ranks (issue 20's `compare`): rank 3's residual is NaN, and its
   field has a NaN; rank 2's field differs at element 1. */
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
    double field[4] = {1, 2, 3, 4};
    field[1] += rank == 2 ? 3 : 0;
    field[2] = rank == 3 ? NAN : field[2];
    printf("rank %d %g %d %g\n", rank, residual, cells, field[0]);
    MPI_Finalize();
    return 0;
}
