/* A hang on a sub-communicator (issue 20's `diagnose`): the even ranks meet in a barrier of
   their own communicator, which rank 2 never reaches (it computes); the odd ranks pass theirs
   and wait in a barrier of all ranks. */
#include <mpi.h>

static double relax(double x)
{
    for (;;) x = x * 0.5 + 1.0;
    return x;
}

int main(int argc, char **argv)
{
    int rank = -1;
    double x = 0;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    if (rank == 2)
        x = relax(x);
    MPI_Barrier(half);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return (int)x;
}
