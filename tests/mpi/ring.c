/* Ring: each rank sends a token to rank+1 and receives from rank-1, prints, exits 0.
   With an argument FILE, each rank first waits (after MPI_Init) until FILE exists. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int reached = 0;

int main(int argc, char **argv)
{
    int rank, size, token, from;
    MPI_Init(&argc, &argv);
    reached = 1; /* AFTER_INIT */
    if (argc > 1)
        while (access(argv[1], F_OK) != 0)
            usleep(10000);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    token = rank * 10;
    from = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &from, 1, MPI_INT,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d of %d got %d\n", rank, size, from);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
