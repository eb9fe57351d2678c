/* Under mpirun every rank's address space is randomised: every pc and pointer differs from
   rank to rank, the program being the same. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct cell {
    int v;
    struct cell *next;
};

int leaf(struct cell *c, const char *name, int n)
{
    int s = c->v + n;
    return s;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct cell *c = malloc(sizeof *c);
    c->v = 1;
    c->next = 0;
    int t = leaf(c, "cell", 7);
    printf("rank %d: %d\n", rank, t);
    MPI_Finalize();
    return 0;
}
