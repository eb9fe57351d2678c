// Template class names in expressions: gdb knows a library template by its full name
// (`std::map<int, double, std::less<int>, …>`), the short one is an unknown symbol in its
// namespace; ptype of whole library containers.
#include <map>
#include <vector>

template <typename T> struct Box {
    T v;
};

int main()
{
    std::map<int, double> m{{1, 2.5}};
    std::vector<int> v{1, 2, 3};
    Box<int> b{7};
    return m.size() + v.size() + b.v == 0;
}
