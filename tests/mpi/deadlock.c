/* A deadlock (issue 20's `diagnose`): both ranks receive before they send, each waiting for
   the other's message. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank = -1, in = 0, out = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&out, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
