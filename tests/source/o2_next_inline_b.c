/* The out-of-line calls of o2_next_inline.c. */
typedef struct {
    int nx, ny;
    int west, east;
} grid_t;
volatile int exchanges;
void setup(grid_t *g, int *comm) { *comm = 7; g->nx = g->ny = 4; g->west = g->east = -2; }
void exchange(const grid_t *g, double *u, int comm) { exchanges += comm; }
void allreduce(double *in, double *out, int comm) { *out = *in; }
