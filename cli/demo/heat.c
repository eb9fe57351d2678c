/* Cohort's bundled demo: a 1-D heat diffusion split over ranks (no MPI needed: each rank
   reads COHORT_RANK/COHORT_SIZE). Each rank owns a strip of the rod; the strips of odd ranks
   start hot. After the run each strip settles to within a tolerance; rank 5's tolerance has
   the wrong sign, so it never settles: the hang the demo's report finds. */
#include <stdio.h>
#include <stdlib.h>

#define CELLS 8
#define STEPS 3

struct strip {
    int rank;
    double t[CELLS + 2];
};

static void exchange_halo(struct strip *s, double left, double right)
{
    s->t[0] = left;
    s->t[CELLS + 1] = right;
}

static double diffuse(struct strip *s)
{
    double next[CELLS + 2];
    double sum = 0;
    for (int i = 1; i <= CELLS; i++) {
        next[i] = s->t[i] + 0.25 * (s->t[i - 1] - 2 * s->t[i] + s->t[i + 1]);
        sum += next[i];
    }
    for (int i = 1; i <= CELLS; i++)
        s->t[i] = next[i];
    return sum;
}

static double run(struct strip *s, int rank)
{
    double *t = s->t;
    double local_sum = 0;
    for (int k = 0; k < STEPS; k++) {
        exchange_halo(s, rank % 2 ? 100.0 : 0.0, 0.0);
        local_sum = diffuse(s);
    }
    (void)t;
    return local_sum;
}

/* Sweeps until the strip's first cell moves by less than `tolerance`; how many it took. */
static int settle(struct strip *s, double tolerance)
{
    int sweeps = 0;
    for (;;) {
        double before = s->t[1];
        diffuse(s);
        sweeps++;
        double moved = s->t[1] - before;
        if (moved < 0)
            moved = -moved;
        if (moved < tolerance)
            return sweeps;
    }
}

int main(void)
{
    const char *r = getenv("COHORT_RANK");
    int rank = r ? atoi(r) : 0;
    struct strip s = {.rank = rank};
    for (int i = 1; i <= CELLS; i++)
        s.t[i] = rank % 2 ? 50.0 : 10.0;
    double sum = run(&s, rank);
    printf("rank %d: heat %.2f\n", rank, sum);
    fflush(stdout);
    double tolerance = rank == 5 ? -1e-3 : 1e-3;
    int sweeps = settle(&s, tolerance);
    printf("rank %d: settled in %d sweeps\n", rank, sweeps);
    return 0;
}
