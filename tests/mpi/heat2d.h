/* heat2d: a 2-D Jacobi heat solver in the style of the public mini-apps, for the MPI
   differential test (cli/tests/mpi_apps.rs). The global grid is split into blocks over a
   px x py process grid; each block keeps one halo layer, exchanged every iteration through
   MPI_Sendrecv (rows straight from the field, columns through packed halo buffers). */
#ifndef HEAT2D_H
#define HEAT2D_H

#include <mpi.h>

/* Where this rank's block lies in the global grid, and who its neighbours are. */
typedef struct {
    int gnx, gny;                 /* global interior points */
    int nx, ny;                   /* this rank's interior points */
    int px, py;                   /* process grid */
    int cx, cy;                   /* this rank's place in it */
    int x0, y0;                   /* global index of the first interior point */
    int west, east, south, north; /* neighbours, MPI_PROC_NULL at the boundary */
    double h;                     /* grid spacing */
} grid_t;

/* Packed columns for the east-west exchange. */
typedef struct {
    int len;
    double *send_w, *send_e;
    double *recv_w, *recv_e;
    long exchanges;
} halo_t;

typedef struct {
    grid_t g;
    double *u;    /* (nx + 2) x (ny + 2) points, halo included, row by row */
    double *unew;
} field_t;

#define AT(g, i, j) ((j) * ((g)->nx + 2) + (i))

void halo_init(halo_t *h, const grid_t *g);
void halo_exchange(const grid_t *g, halo_t *h, double *u, MPI_Comm comm);
void halo_free(halo_t *h);

#endif
