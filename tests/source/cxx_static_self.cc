// Static data members: one of the class's own type (it made the whole class
// "type nesting too deep" in print and ptype), one of a base class, and
// static members read through an object (`obj.count`).
struct S {
    int a;
    static S inst;
};
S S::inst = {7};

struct Base {
    static int count;
    static const int limit = 16;
};
int Base::count = 5;

struct Derived : Base {
    int d;
};

int main()
{
    S s = {3};
    Derived x;
    x.d = 4;
    return s.a + x.d; /* stop */
}
