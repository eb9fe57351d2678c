// Class-scope typedefs, a method's type, calls passing and returning a class that is not
// trivially copyable (by invisible reference, as the Itanium C++ ABI says), a call that
// stops at a breakpoint (gdb's <function called from gdb> frame).
#include <cstdio>

struct Outer {
    typedef unsigned long size_type;
    using value_type = double;
    struct Inner {
        int k;
    };
    size_type n = 3;
    value_type v = 1.5;
    int get(int a) const { return a + (int)n; }
    double scale(double f) { return v * f; }
};

struct Big {
    int id;
    double w;
    Big(int i, double x) : id(i), w(x) {}
    Big(const Big &o) : id(o.id + 100), w(o.w) {}
    ~Big() { id = -1; }
};

static int take(Big b) { return b.id; }
static Big make(int i) { return Big(i, 2.5); }
static int stop_here(int x) { return x * 2; }

int main()
{
    Outer o;
    Outer::size_type s = o.n;
    Outer::Inner in{7};
    Big b(5, 0.5);
    int r = o.get(1) + take(b) + make(2).id + stop_here(1) + in.k + (int)s;
    std::printf("%d\n", r);
    return 0;
}
