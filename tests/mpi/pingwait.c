/* Rank 0 waits for a message from rank 1, which sends it one line later: a parallel `next`
   finds rank 0 blocked in MPI_Recv while rank 1 goes on. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank = -1, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        value += 1;
    } else {
        value = 41;
        MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    printf("rank %d value %d\n", rank, value);
    MPI_Finalize();
    return 0;
}
