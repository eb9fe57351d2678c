/* A barrier hang (issue 20's `diagnose`): rank 1 computes for ever before the barrier the
   others wait in. */
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
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        x = relax(x);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return (int)x;
}
