/* -O2: `next` from a breakpoint on an inlined function whose code starts with a fragment on
   its caller's line (gcc hoists a load of the inlined loop's bound there). */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int nx, ny;
    int west, east;
} grid_t;

typedef struct {
    grid_t g;
    double *u;
    double *unew;
} field_t;

#define AT(g, i, j) ((j) * ((g)->nx + 2) + (i))

void setup(grid_t *g, int *comm);
void exchange(const grid_t *g, double *u, int comm);
void allreduce(double *in, double *out, int comm);

static double stencil_sweep(field_t *f)
{
    const grid_t *g = &f->g;
    double diff = 0.0;
    for (int j = 1; j <= g->ny; j++) {
        for (int i = 1; i <= g->nx; i++) {
            double v = 0.25 * (f->u[AT(g, i - 1, j)] + f->u[AT(g, i + 1, j)] +
                               f->u[AT(g, i, j - 1)] + f->u[AT(g, i, j + 1)]);
            double d = v - f->u[AT(g, i, j)];
            diff += d * d;
            f->unew[AT(g, i, j)] = v;
        }
    }
    double *t = f->u;
    f->u = f->unew;
    f->unew = t;
    return diff;
}

static double residual(field_t *f, int comm)
{
    double local = stencil_sweep(f);
    double global = 0.0;
    allreduce(&local, &global, comm);
    return global / 2.0;
}

int main(int argc, char **argv)
{
    int iters = 2, comm;
    field_t field;
    double res = 0.0;

    if (argc > 1)
        iters = atoi(argv[1]);
    setup(&field.g, &comm);
    field.u = calloc(36, sizeof(double));
    field.unew = calloc(36, sizeof(double));
    for (int it = 0; it < iters; it++) {
        exchange(&field.g, field.u, comm);
        res = residual(&field, comm);
    }
    printf("%g\n", res);
    free(field.u);
    free(field.unew);
    return 0;
}
