// whatis and ptype in C++: typedefs one level at a time, libstdc++'s type printers
// (std::string, std::vector<double>, std::map<int, int>) for classes but not for typedefs.
#include <string>
#include <vector>
#include <map>
typedef int myint;
typedef myint myint2;
using Vec = std::vector<double>;
namespace ns { typedef double real; struct P { real x; }; using PP = P *; }
struct S { typedef int idx; idx i; myint2 m; };
int main()
{
    myint2 a = 1;
    Vec v{1.0};
    ns::real r = 2.0;
    ns::PP pp = nullptr;
    S s{1, 2};
    std::string str = "x";
    std::map<int, int> m;
    const myint2 ca = 3;
    myint2 arr[2] = {1, 2};
    myint2 *pa = &a;
    return a + (int)v[0] + (int)r + s.i + (int)str.size() + ca + arr[0] + *pa + (int)m.size();
}
