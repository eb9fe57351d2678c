// Frames of functions whose names hold a lambda (std::for_each, std::function's invokers):
// gdb prints them whole, with parameters spelt by its C++ type printer (struct {...}).
#include <algorithm>
#include <vector>
#include <functional>
volatile int sink;
void leaf(int x) { sink += x; }
template <class F> void apply(F f) { f(3); }
namespace { struct { void go() { leaf(1); } } anon; }
int main() {
  std::vector<int> v{1};
  std::for_each(v.begin(), v.end(), [](int x) { leaf(x); });
  apply([](int x) { leaf(x); });
  std::function<void(int)> g = [](int x) { leaf(x); };
  g(2);
  anon.go();
  return 0;
}
