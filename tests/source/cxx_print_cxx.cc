// The C++ print settings: static-members, vtbl, demangle and asm-demangle.
namespace ns {
struct Base {
    static int count;
    static const int limit = 16;
    static int table[3];
    int b;
    virtual int f(int x) { return x + b; }
    virtual ~Base() {}
};
int Base::count = 3;
int Base::table[3] = {1, 2, 3};
struct Derived : Base {
    int d;
    static Base shared;
    int f(int x) override { return x * d; }
};
Base Derived::shared;
struct OnlyStatic {
    static int n;
};
int OnlyStatic::n = 4;
int helper(int v)
{
    return v + 1;
}
} // namespace ns

int stop(ns::Base *p)
{
    return p->f(2);
}

int main()
{
    ns::Derived dv;
    dv.b = 1;
    dv.d = 2;
    ns::Base *bp = &dv;
    ns::OnlyStatic os;
    int (*fp)(int) = ns::helper;
    return stop(bp) + ns::helper(1) + fp(0) + os.n;
}
