/* A deadlock through requests (issue 20's `diagnose`): every rank posts receives from both
   neighbours and waits for them all before it sends anything. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank = -1, size = 0, in[2] = {0, 0};
    MPI_Status st[2];
    MPI_Request req[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Irecv(&in[0], 1, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, st);
    MPI_Send(&rank, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
