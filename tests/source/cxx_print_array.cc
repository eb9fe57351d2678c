// set print array with the standard library's containers: a vector's elements one a line
// (the printer's array hint), a map's pairs unchanged, std::array as a C array member.
#include <array>
#include <map>
#include <vector>

struct P {
    int x;
    std::vector<int> v;
};

int stop(int x)
{
    return x;
}

int main()
{
    std::vector<int> v{1, 2, 3};
    std::vector<std::vector<int>> vv{{1, 2}, {3}};
    std::map<int, int> m{{1, 2}, {3, 4}};
    std::array<int, 3> a{4, 5, 6};
    P p{1, {7, 8}};
    std::vector<int> big(12, 1);
    stop(0);
    return v[0] + (int)vv.size() + (int)m.size() + a[0] + p.x + big[1];
}
