// Hash tables and std::optional as gdb's libstdc++ printers show them: std::unordered_map
// (int and string keys), std::unordered_set, std::optional with and without a value, and a
// one-element std::map ("1 element"), std::unordered_multimap and std::unordered_multiset.
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

static int count(const std::unordered_map<int, double> &um, std::optional<int> o)
{
    return um.size() + (o ? *o : 0);
}

int main()
{
    std::unordered_map<int, int> um{{1, 10}};
    std::unordered_map<int, double> um2{{1, 1.5}, {2, 2.5}, {3, 3.5}};
    std::unordered_map<std::string, int> ums{{"one", 1}, {"two", 2}};
    std::unordered_set<int> us{4, 5};
    std::unordered_set<int> eus;
    std::optional<int> o = 5, none;
    std::optional<double> od = 2.5;
    std::map<int, int> one{{1, 2}};
    std::unordered_multimap<int, int> umm{{2, 3}, {2, 4}};
    std::unordered_multiset<long> umset{5, 5};
    return count(um2, o) + count(um2, none) == 0;
}
