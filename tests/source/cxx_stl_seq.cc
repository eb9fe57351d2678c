// std::deque across several buffers (grown at both ends), std::tuple, and a std::vector
// longer than `print elements` allows, as gdb's libstdc++ printers show them.
#include <deque>
#include <string>
#include <tuple>
#include <vector>

int main()
{
    std::deque<int> dq{1, 2};
    std::deque<int> big;
    for (int i = 0; i < 150; i++)
        big.push_back(i);
    for (int i = 0; i < 20; i++)
        big.push_front(-i);
    std::deque<double> ed;
    std::tuple<int, char> t{4, 'c'};
    std::tuple<std::string, double, int> t3{"w", 0.5, 3};
    std::vector<double> many(1000, 0.25);
    std::vector<int> exact(200, 1);
    return dq.size() + big.size() + many.size() == 0;
}
