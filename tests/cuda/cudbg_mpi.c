/* The CUDBG double's debuggee as an MPI program, for `cohort launch --launcher openmpi`: MPI
 * starts, the program of cudbg_debuggee.c runs (its lines keep their numbers), MPI ends. */
#include <mpi.h>

#define main debuggee_main
#include "cudbg_debuggee.c"
#undef main

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int status = debuggee_main(argc, argv);
    MPI_Finalize();
    return status;
}
