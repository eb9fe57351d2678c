/* A hung job: rank 0 waits in MPI_Recv for a message rank 1 never sends, because rank 1
   sleeps in a loop of its own. `info ranks` should say so in the program's terms. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank = -1, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        for (;;)
            sleep(1);
    MPI_Finalize();
    return 0;
}
