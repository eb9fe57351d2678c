struct point { int x, y; };
union num { long l; double d; };
enum color { RED, GREEN = 5 };
typedef struct point point_t;
static int counter;
int add(point_t p, int k) { int s = p.x + p.y + k; counter += s; return s; }
