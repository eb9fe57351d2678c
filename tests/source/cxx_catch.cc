// C++ exceptions: catch throw / catch catch / catch rethrow stop at libstdc++'s probes for
// them, with a backtrace to the throwing function.
#include <stdexcept>
static int depth = 0;
static void thrower(int n)
{
    if (n > 2)
        throw std::runtime_error("too deep");
    depth = n;
}
static void rethrower()
{
    try {
        thrower(5);
    } catch (...) {
        throw;
    }
}
int main()
{
    int caught = 0;
    try {
        thrower(1);
        thrower(3);
    } catch (const std::exception &e) {
        caught++;
    }
    try {
        rethrower();
    } catch (const std::exception &e) {
        caught++;
    }
    return caught == 2 ? 0 : 1;
}
