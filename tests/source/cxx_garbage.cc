// STL containers over unreadable memory (as in variables not yet initialised): gdb stops a
// vector at its first unreadable element (print fails, info locals names the variable), a
// map says so after its summary.
#include <map>
#include <string>
#include <vector>
struct Raw { long w[8]; };
std::vector<double> keep_v(1);
std::map<std::string, int> keep_m{{"a", 1}};
int main() {
  Raw r = {{3, 3 + 8 * 1000, 3 + 8 * 1000, 0, 0, 0, 0, 0}};
  Raw q = {{0, 0x7fff00000000, 0x11, 0x13, 0x17, 5, 0, 0}};
  std::vector<double> &v = *reinterpret_cast<std::vector<double> *>(&r);
  std::map<std::string, int> &m = *reinterpret_cast<std::map<std::string, int> *>(&q);
  return (int)r.w[0] + (int)q.w[5] + keep_v.size() + keep_m.size(); // here
}
