/* Where launched ranks are first shown, and where `run` brings them back: each rank prints
   its rank and the job's size. */
#include <mpi.h>
#include <stdio.h>

int main(void)
{
    int rank = -1, size = -1;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* AFTER_INIT */
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d of %d\n", rank, size); /* PRINT */
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
