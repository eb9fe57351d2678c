// Overloaded C++ functions in breakpoints: by parameter list (`f(double)`, `A::f(int)
// const`, `f(int,int)`), by plain name (one breakpoint, a location per overload), function
// templates with and without their arguments, a return type in a quoted name.
#include <string>
#include <vector>

struct A {
    int v;
    int f(int x) const { return v + x; }
    int f(double x) const { return v + (int)x; }
    void set(int x) { v = x; }
};

namespace ns {
int g(int a) { return a + 1; }
}

static double f(double x) { return x * 2; }
static int f(int x) { return x + 1; }
static int f(int x, int y) { return x + y; }

template <typename T> T twice(T x) { return x + x; }

extern "C" int cfun(int a) { return a - 1; }

static double use(const std::vector<double> &b, const char *s, std::string t, unsigned long n,
                  int (*fp)(int))
{
    return b[0] + n + s[0] + t.size() + fp(1);
}

typedef int myint;
static int h(size_t n, myint m, const std::string &s) { return n + m + s.size(); }
int ext(const std::string &s) { return s.size(); }

int main(int argc, char **argv)
{
    A a{3};
    a.set(4);
    int r = a.f(1) + a.f(2.0);
    double d = f(1.5) + f(2) + f(1, 2);
    r += ns::g(2) + twice<int>(3) + (int)twice<double>(1.5);
    std::vector<double> v{1.0};
    d += use(v, "x", "y", 2, cfun);
    r += h(1, 2, "ab") + ext("abc");
    return r + (int)d > 0 ? 0 : argc;
}
