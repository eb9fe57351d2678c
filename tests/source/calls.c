/* Functions called from the debugger: every kind of argument and return value of the
   x86-64 System V convention. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

struct pt { int x, y; };
struct vec3 { double x, y, z; };
struct mixed { int i; float f; };
struct big { long a[5]; };
struct two { double a; long b; };

int counter = 0;

int add(int a, int b) { return a + b; }
long mul3(long a, long b, long c) { return a * b * c; }
double half(double d) { return d / 2; }
float fsum(float a, float b) { return a + b; }
long double ldbl(long double x) { return x * 2; }
char first(const char *s) { return s[0]; }
int many(int a, int b, int c, int d, int e, int f, int g, int h) { return a + b + c + d + e + f + g + h * 10; }
double dmany(double a, double b, double c, double d, double e, double f, double g, double h, double i, double j) { return a + b + c + d + e + f + g + h + i + j * 100; }
int sum_pt(struct pt p) { return p.x * 100 + p.y; }
struct pt make_pt(int x, int y) { struct pt p = { x, y }; return p; }
double norm1(struct vec3 v) { return v.x + v.y + v.z; }
struct vec3 scale(struct vec3 v, double k) { struct vec3 r = { v.x * k, v.y * k, v.z * k }; return r; }
struct mixed mk_mixed(int i, float f) { struct mixed m = { i, f }; return m; }
long big_sum(struct big b) { return b.a[0] + b.a[1] + b.a[2] + b.a[3] + b.a[4]; }
struct big make_big(long k) { struct big b = { { k, k + 1, k + 2, k + 3, k + 4 } }; return b; }
struct two mk_two(double a, long b) { struct two t = { a, b }; return t; }
void bump(void) { counter++; }
int *where(void) { return &counter; }
int crash(int *p) { return *p; }
int deref(int *p) { return *p * 2; }
void leave(int code) { exit(code); }
extern int nd_twice(int);

int main(void)
{
  struct pt p = { 3, 4 };
  struct vec3 v = { 1.5, 2.5, 3.0 };
  struct big b = make_big(10);
  int n = 5;
  bump();
  n = nd_twice(n);
  printf("%d %d %g %ld %d\n", add(1, 2), sum_pt(p), norm1(v), big_sum(b), n);
  return 0;
}
