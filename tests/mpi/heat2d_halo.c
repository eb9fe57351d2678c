/* heat2d's halo exchange (see heat2d.h). */
#include <stdlib.h>

#include "heat2d.h"

void halo_init(halo_t *h, const grid_t *g)
{
    h->len = g->ny;
    h->send_w = calloc(g->ny, sizeof(double));
    h->send_e = calloc(g->ny, sizeof(double));
    h->recv_w = calloc(g->ny, sizeof(double));
    h->recv_e = calloc(g->ny, sizeof(double));
    h->exchanges = 0;
}

static void pack_column(const grid_t *g, const double *u, int i, double *buf)
{
    for (int j = 1; j <= g->ny; j++)
        buf[j - 1] = u[AT(g, i, j)];
}

static void unpack_column(const grid_t *g, double *u, int i, const double *buf)
{
    for (int j = 1; j <= g->ny; j++)
        u[AT(g, i, j)] = buf[j - 1];
}

void halo_exchange(const grid_t *g, halo_t *h, double *u, MPI_Comm comm)
{
    int row = g->nx + 2;
    /* Rows are contiguous: first interior row to the south, last to the north. */
    MPI_Sendrecv(&u[AT(g, 0, 1)], row, MPI_DOUBLE, g->south, 1,
                 &u[AT(g, 0, g->ny + 1)], row, MPI_DOUBLE, g->north, 1, comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[AT(g, 0, g->ny)], row, MPI_DOUBLE, g->north, 2,
                 &u[AT(g, 0, 0)], row, MPI_DOUBLE, g->south, 2, comm, MPI_STATUS_IGNORE);
    /* Columns are strided: pack, exchange, unpack. */
    pack_column(g, u, 1, h->send_w);
    pack_column(g, u, g->nx, h->send_e);
    MPI_Sendrecv(h->send_w, h->len, MPI_DOUBLE, g->west, 3, h->recv_e, h->len, MPI_DOUBLE,
                 g->east, 3, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(h->send_e, h->len, MPI_DOUBLE, g->east, 4, h->recv_w, h->len, MPI_DOUBLE,
                 g->west, 4, comm, MPI_STATUS_IGNORE);
    if (g->west != MPI_PROC_NULL)
        unpack_column(g, u, 0, h->recv_w);
    if (g->east != MPI_PROC_NULL)
        unpack_column(g, u, g->nx + 1, h->recv_e);
    h->exchanges++;
}

void halo_free(halo_t *h)
{
    free(h->send_w);
    free(h->send_e);
    free(h->recv_w);
    free(h->recv_e);
}
