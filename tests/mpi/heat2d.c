/* heat2d: main program and stencil kernel (see heat2d.h). Argument: iterations (default 20).
   Prints one line from rank 0 at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "heat2d.h"

static void grid_setup(grid_t *g, int gnx, int gny, MPI_Comm cart)
{
    int dims[2], periods[2], coords[2];
    MPI_Cart_get(cart, 2, dims, periods, coords);
    g->gnx = gnx;
    g->gny = gny;
    g->px = dims[0];
    g->py = dims[1];
    g->cx = coords[0];
    g->cy = coords[1];
    g->nx = gnx / g->px;
    g->ny = gny / g->py;
    g->x0 = g->cx * g->nx + 1;
    g->y0 = g->cy * g->ny + 1;
    MPI_Cart_shift(cart, 0, 1, &g->west, &g->east);
    MPI_Cart_shift(cart, 1, 1, &g->south, &g->north);
    g->h = 1.0 / (gnx + 1);
}

static void field_init(field_t *f)
{
    const grid_t *g = &f->g;
    size_t n = (size_t)(g->nx + 2) * (g->ny + 2);
    f->u = calloc(n, sizeof(double));
    f->unew = calloc(n, sizeof(double));
    /* The interior starts at a different temperature on each block. */
    for (int j = 1; j <= g->ny; j++)
        for (int i = 1; i <= g->nx; i++)
            f->u[AT(g, i, j)] = 0.125 * (g->cx + g->px * g->cy);
    /* The hot wall is the global north boundary; the others stay at 0. */
    if (g->north == MPI_PROC_NULL)
        for (int i = 0; i <= g->nx + 1; i++) {
            f->u[AT(g, i, g->ny + 1)] = 1.0 + (g->x0 + i - 1) * g->h;
            f->unew[AT(g, i, g->ny + 1)] = f->u[AT(g, i, g->ny + 1)];
        }
}

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

static double residual(field_t *f, MPI_Comm comm)
{
    double local = stencil_sweep(f);
    double global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
    return sqrt(global);
}

int main(int argc, char **argv)
{
    int rank, size, iters = 20;
    int dims[2] = {0, 0}, periods[2] = {0, 0};
    MPI_Comm cart;
    field_t field;
    halo_t halo;
    double res = 0.0;

    MPI_Init(&argc, &argv);
    if (argc > 1)
        iters = atoi(argv[1]);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    grid_setup(&field.g, 8, 8, cart);
    field_init(&field);
    halo_init(&halo, &field.g);
    for (int it = 0; it < iters; it++) {
        halo_exchange(&field.g, &halo, field.u, cart);
        res = residual(&field, cart);
    }
    if (rank == 0)
        printf("heat2d: %d iterations on %d ranks, residual %.6e\n", iters, size, res);
    halo_free(&halo);
    free(field.u);
    free(field.unew);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
