/* Mismatched tags (issue 20's `diagnose`): rank 1 sends with tag 8, rank 0 waits for tag 7;
   rank 1's small message goes out at once and it finalizes. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank = -1, v = 5;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
