/* `set print frame-arguments` (issue 18): scalars, all, none and presence in frame lines. */
struct S {
    int a;
    double b;
};

int f(int x, struct S s, const char *p)
{
    return x + s.a + p[0];
}

int g(void)
{
    struct S s = {1, 2.5};
    return f(3, s, "hi");
}

int main(void)
{
    return g() == 0;
}
