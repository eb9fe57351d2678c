/* ptype and whatis of variables, expressions and type names. */
typedef unsigned long size_type;
typedef struct shape shape_t;
typedef int matrix_t[2][3];
typedef double (*scale_fn)(double, int);

enum unit { MM, CM = 10, M = 1000 };

struct shape {
    const char *name;
    size_type sides;
    enum unit unit;
    union {
        double radius;
        double edge;
    } dim;
    struct {
        int r, g, b;
    } color;
    unsigned int filled : 1;
    shape_t *children[2];
    double (*area)(const shape_t *);
};

union reg {
    unsigned long whole;
    unsigned short halves[4];
};

static double square_area(const shape_t *s) { return s->dim.edge * s->dim.edge; }
static double scale(double v, int by) { return v * by; }

shape_t sq = {"square", 4, CM, {.edge = 2.0}, {1, 2, 3}, 1, {0, 0}, square_area};
matrix_t mat = {{1, 2, 3}, {4, 5, 6}};
scale_fn scaler = scale;
const volatile int *const cvp = 0;
union reg r;
char *argv_like[2];
size_type count = 3;

int main(void)
{
    double a = sq.area(&sq);
    return (int)(a + scaler(1.0, 2)) + mat[1][2] + (int)count;
}
