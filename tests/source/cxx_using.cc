// C++ name lookup as gdb's cp_lookup_symbol_nonlocal: the function's namespaces and class,
// `using namespace` in the unit and in blocks, members defined outside their class, `::x`.
#include <cstdio>
#include <string>

namespace mesh {
struct Point { double x, y, z; };
struct Config {
  Config() : n(3) {}
  static const int version = 2;
  int n;
  int twice() const;
  operator bool() const { return n != 0; }
};
int Config::twice() const { return 2 * n; }
int level = 7;
template <typename T, int N>
struct Field {
  Field(std::string name) : name_(name) {}
  typedef T value_type;
  using index = int;
  T data[N];
  value_type total = 0;
  index count = N;
  std::string name_;
  T first() const { return data[0]; }
  const T *row(int i) const { return &data[i]; }
};
namespace detail {
int depth = 2;
int probe(int a) { return a + depth + level; }
}  // namespace detail
}  // namespace mesh

namespace io {
int level = 11;
int count = 5;
}

int level = 1;
using namespace mesh;

int solve(Config &cfg, Field<double, 3> &f) {
  int r = cfg.twice() + (int)f.first();
  {
    using namespace io;
    r += count;
    std::printf("block %d\n", r);
  }
  return r + detail::probe(r) + (cfg ? 1 : 0);
}

int main() {
  Config cfg;
  Field<double, 3> f("velocity");
  f.data[0] = 1.5;
  f.data[1] = 2.5;
  Point p{1, 2, 3};
  int level = 100;
  std::printf("%d %g %d\n", solve(cfg, f), p.x + f.first(), level);
  return 0;
}
