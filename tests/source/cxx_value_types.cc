// Type names in printed values: gdb has no type printers there, so pointers and references
// to standard containers show the full template name (whatis keeps the short one).
#include <vector>
#include <string>
#include <map>
int use(std::vector<double> &r, std::vector<double> *p, std::map<int, std::string> &m) { return r.size() + p->size() + m.size(); } // here
int main() {
  std::vector<double> v(2);
  std::map<int, std::string> m{{1, "a"}};
  return use(v, &v, m);
}
