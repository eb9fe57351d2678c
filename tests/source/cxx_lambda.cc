// A lambda: its frame, arguments, captures (by value and by reference) and locals.
int main()
{
    double k = 2.0;
    int cnt = 3;
    double z = -1.0;
    auto f = [k, &cnt](double z) {
        double w = z * k;
        return w + cnt;
    };
    double r = f(1.5);
    for (int i = 0; i < 2; i++) {
        auto g = [&r, i](int step) { return r + step * i; };
        r = g(4);
    }
    return r + z > 0 ? 0 : 1;
}
