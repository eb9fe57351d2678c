// Frames whose C++ names gdb prints from the demangled linkage name: with their parameters
// where gdb's C++ name parser cannot read a function type given as a template argument
// (std::function<void ()>), else without (W<std::array<char, 2ul> >::m).
#include <functional>
#include <vector>
#include <array>
#include <map>
volatile int sink;
void leaf() { sink++; }
template <class T> struct W { void m(T) const { leaf(); } };
void b1(std::vector<std::function<void ()>> const&) { leaf(); }
void b2(void (&)(int)) { leaf(); }
void b3(std::array<int, 3> const&) { leaf(); }
void b4(std::map<int, std::function<double (int)>>&) { leaf(); }
void b5(void (*)(std::function<void ()>)) { leaf(); }
void cb(int) {}
void cf(std::function<void ()>) {}
int main() {
  std::vector<std::function<void ()>> v; b1(v);
  b2(cb);
  std::array<int, 3> a{}; b3(a);
  std::map<int, std::function<double (int)>> m; b4(m);
  b5(cf);
  W<void (&)(int)>{}.m(cb);
  W<std::array<char, 2>>{}.m({});
  return 0;
}
