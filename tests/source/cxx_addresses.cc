// Code addresses named as gdb does: demangled physnames for values and registers, the
// mangled name in x/i, main() for a C++ function without a linkage name.
#include <cstdio>
namespace geom {
struct Shape { double w; };
double total(const Shape &a, const Shape &b) { return a.w + b.w; } // in total
}
int twice(int x) { return 2 * x; }
int main() {
  geom::Shape a{1}, b{2};
  int (*fp)(int) = twice;
  double r = geom::total(a, b) + fp(3);
  std::printf("%g\n", r);
  return 0;
}
