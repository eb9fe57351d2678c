// Base classes named through a typedef (clang++ writes DW_TAG_inheritance of the typedef,
// g++ of the class), and base classes under `set print pretty on` (gdb's "members of X:").
struct Base {
    int a;
    double x;
};
typedef Base BaseT;
template <typename T> struct TB {
    T t;
};
using TBi = TB<int>;
struct Derived : BaseT, TBi {
    int d;
};
struct Empty : BaseT {
};
struct Poly {
    virtual ~Poly() {}
    int k;
};
typedef Poly PolyT;
struct PolyD : PolyT {
    int m;
};

int main()
{
    Derived o;
    o.a = 1;
    o.x = 2.5;
    o.t = 3;
    o.d = 4;
    Empty e;
    e.a = 5;
    e.x = 0.5;
    PolyD pd;
    pd.k = 6;
    pd.m = 7;
    Derived *p = &o;
    PolyT *pp = &pd;
    return o.d + e.a + pp->k == 0;
}
