// libstdc++ iterators as gdb's printers show them (the element they point at), and smart
// pointers in frame lines (`{...}` for a printer's children); their types' names with
// libstdc++'s type printers, and operators on them.
#include <string>
#include <vector>
#include <map>
#include <set>
#include <list>
#include <deque>
#include <memory>
#include <utility>
struct P { int x; double y; };
volatile int sink;
void f(std::vector<int>::iterator it, std::unique_ptr<int> p, std::shared_ptr<int> sp) { sink = *it + *p + *sp; }
int main() {
  std::vector<int> v{4, 5};
  std::vector<P> vp{{1, 2.5}};
  std::map<int, std::string> m{{1, "one"}, {2, "two"}};
  std::set<double> s{1.5, 2.5};
  std::list<long> l{7, 8};
  std::deque<short> d{3};
  std::string str = "abc";
  auto vi = v.begin(); auto vpi = vp.begin(); auto mi = m.find(2); auto si = s.begin();
  auto li = l.begin(); auto di = d.begin(); auto stri = str.begin(); auto ve = v.end();
  std::map<int, std::string>::iterator mnull; std::vector<int>::iterator vnull;
  std::list<long>::const_iterator lci = l.cbegin();
  std::vector<std::pair<int, std::string>> vps{{1, "a"}};
  auto vpsi = vps.begin(); std::vector<std::string>::size_type sz = 2;
  sink = vpi->x + mi->first;
  f(vi, std::make_unique<int>(3), std::make_shared<int>(9));
  return 0;
}
