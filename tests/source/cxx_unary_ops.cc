// Unary operators on class values that define none: gdb's C++ words (it looks for a
// function operatorOP), not C's.
struct P {
    int a;
};
struct Q {
    int a;
    int f() const { return a; }
};
int main()
{
    P p{1};
    Q q{2};
    return q.f() + p.a;
}
