// A program built against libc++ (clang++ -stdlib=libc++): gdb 13 has no printers for it, so
// both debuggers print its containers raw; cohort's libstdc++ printers must not claim them.
#include <vector>
#include <string>
#include <map>
#include <memory>
#include <cstdio>

struct Cell { int id; double v; };

int main() {
  std::vector<int> v{1, 2, 3};
  std::string s = "short";
  std::map<int, double> m{{1, 0.5}, {2, 1.5}};
  std::unique_ptr<Cell> p(new Cell{7, 2.5});
  Cell c{1, 3.5};
  std::printf("%zu %s %zu %d %d\n", v.size(), s.c_str(), m.size(), p->id, c.id);
  return 0;
}
