/* A collective one rank never calls (issue 20's `diagnose`): rank 2 leaves the loop of
   MPI_Allreduce one round early and finalizes while the others wait for it. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank = -1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 5; i++) {
        if (rank == 2 && i == 3)
            break;
        MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
