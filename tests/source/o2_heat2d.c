/* -O2: a 2-D heat stencil with inlined index and Laplacian helpers (int inside double). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int nx, ny;
    double dx, dt, alpha;
    double *u, *unew;
} grid_t;

static inline int idx(const grid_t *g, int i, int j) { return j * (g->nx + 2) + i; }

static inline double lap(const grid_t *g, int i, int j)
{
    const double *u = g->u;
    double c = u[idx(g, i, j)];
    return (u[idx(g, i - 1, j)] + u[idx(g, i + 1, j)] + u[idx(g, i, j - 1)] + u[idx(g, i, j + 1)] - 4 * c) / (g->dx * g->dx);
}

__attribute__((noinline)) void halo(grid_t *g)
{
    for (int j = 1; j <= g->ny; j++) {
        g->u[idx(g, 0, j)] = g->u[idx(g, g->nx, j)];
        g->u[idx(g, g->nx + 1, j)] = g->u[idx(g, 1, j)];
    }
}

__attribute__((noinline)) double sweep(grid_t *g)
{
    double maxd = 0;
    for (int j = 1; j <= g->ny; j++)
        for (int i = 1; i <= g->nx; i++) {
            double v = g->u[idx(g, i, j)] + g->alpha * g->dt * lap(g, i, j);
            double d = v > g->u[idx(g, i, j)] ? v - g->u[idx(g, i, j)] : g->u[idx(g, i, j)] - v;
            if (d > maxd)
                maxd = d;
            g->unew[idx(g, i, j)] = v;
        }
    double *t = g->u;
    g->u = g->unew;
    g->unew = t;
    return maxd;
}

int main(int argc, char **argv)
{
    grid_t g = {.nx = argc > 1 ? atoi(argv[1]) : 6, .ny = 4, .dx = 0.1, .dt = 0.001, .alpha = 1.0};
    size_t n = (size_t)(g.nx + 2) * (g.ny + 2);
    g.u = calloc(n, sizeof(double));
    g.unew = calloc(n, sizeof(double));
    g.u[idx(&g, g.nx / 2, g.ny / 2)] = 100.0;
    double d = 0;
    for (int it = 0; it < 3; it++) {
        halo(&g);
        d = sweep(&g);
    }
    printf("%g\n", d);
    return 0;
}
