/* A plain (non-MPI) task for srun: prints its task id and exits 0. With an argument FILE it
   first waits until FILE exists. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int reached = 0;

int main(int argc, char **argv)
{
    const char *id = getenv("SLURM_PROCID");
    reached = 1; /* TASK_START */
    if (argc > 1)
        while (access(argv[1], F_OK) != 0)
            usleep(10000);
    printf("task %s\n", id ? id : "?");
    fflush(stdout);
    return 0;
}
