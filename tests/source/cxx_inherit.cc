// Inheritance: a shadowed member, virtual bases (found through the vtable), multiple
// inheritance and pointer casts between a class and its bases.
struct Base {
    int x;
    double b;
};
struct Derived : Base {
    int x;
    double d;
};
struct VB {
    int v;
    double vd;
};
struct Left : virtual VB {
    int l;
};
struct Right : virtual VB {
    int r;
};
struct Diamond : Left, Right {
    int dm;
};
struct B1 {
    int one;
    virtual ~B1() {}
};
struct B2 {
    int two;
    double t;
};
struct Multi : B1, B2 {
    int m;
};

static int use(Derived &d, Diamond *dp, Multi *mp, Left &lr, B2 *b2)
{
    int s = d.x + d.Base::x + dp->v + mp->two + lr.v + b2->two;
    return s;
}

int main()
{
    Derived d;
    d.Base::x = 1;
    d.x = 2;
    d.b = 0.5;
    d.d = 1.5;
    Diamond dm;
    dm.v = 7;
    dm.vd = 2.25;
    dm.l = 3;
    dm.r = 4;
    dm.dm = 5;
    Multi m;
    m.one = 10;
    m.two = 20;
    m.t = 0.125;
    m.m = 30;
    return use(d, &dm, &m, dm, &m) == 0;
}
