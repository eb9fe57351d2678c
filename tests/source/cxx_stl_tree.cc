// Node-based containers as gdb's libstdc++ printers show them: std::map (int and string
// keys, longer than `print elements` allows), std::set, std::list, and std::pair.
#include <list>
#include <map>
#include <set>
#include <string>
#include <utility>

static int total(const std::map<int, double> &m, const std::list<int> &l, std::set<int> s)
{
    int n = m.size() + l.size() + s.size();
    return n;
}

int main()
{
    std::map<int, double> m{{1, 2.5}, {3, 4.5}, {2, 0.5}};
    std::map<std::string, int> ms{{"a", 1}, {"bc", 2}};
    std::map<int, int> em;
    std::map<int, int> big;
    for (int i = 0; i < 150; i++)
        big[i * 7 % 150] = i;
    std::list<int> l{5, 6, 7};
    std::list<std::string> ls{"x", "yz"};
    std::set<int> st{9, 3, 6};
    std::pair<int, double> p{1, 2.5};
    std::pair<std::string, std::pair<int, int>> pp{"k", {1, 2}};
    return total(m, l, st) == 0;
}
