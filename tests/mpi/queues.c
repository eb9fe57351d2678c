/* Message queues (issue 20): every rank blocks with messages pending. Rank 0 has a large
 * send to 1 (tag 7, rendezvous: pending until received) and a receive from 2 (tag 9) that
 * nothing matches, and waits for the receive; rank 1 receives from 0 with tag 8 (never
 * sent); rank 2 receives from any source with any tag on a duplicate of MPI_COMM_WORLD
 * named "work". */
#include <mpi.h>

#define BIG 100000

static int big[BIG], small[10];
static double dbl[5];

int main(int argc, char **argv) {
    int rank;
    MPI_Comm work;
    MPI_Request req[2];
    MPI_Status st[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &work);
    MPI_Comm_set_name(work, "work");
    if (rank == 0) {
        MPI_Isend(big, BIG, MPI_INT, 1, 7, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(small, 10, MPI_INT, 2, 9, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, st);
    } else if (rank == 1) {
        MPI_Recv(small, 10, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(dbl, 5, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, work, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
