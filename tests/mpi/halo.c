/* A halo exchange that hangs (issue 20's `diagnose`): rank 1 computes for ever, its
   neighbours wait in MPI_Sendrecv for it, and rank 3 waits in a broadcast from rank 1. */
#include <mpi.h>

static double relax(double x)
{
    for (;;) x = x * 0.5 + 1.0;
    return x;
}

int main(int argc, char **argv)
{
    int rank = -1, in = 0, out = 0;
    double x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        x = relax(x);
    if (rank == 3)
        MPI_Bcast(&in, 1, MPI_INT, 1, MPI_COMM_WORLD);
    else
        MPI_Sendrecv(&out, 1, MPI_INT, 1, 4, &in, 1, MPI_INT, 1, 4, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    MPI_Finalize();
    return (int)x;
}
