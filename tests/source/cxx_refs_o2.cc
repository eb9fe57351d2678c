// -O2: references as parameters of a function that is not inlined (kept in registers or
// passed through), subscripted, dereferenced and used as members.
struct P {
    int x;
    double y;
};

volatile double sink;

__attribute__((noinline)) static double sum3(double (&a)[3], double *&p, P &q, const P &cq)
{
    double s = a[0] + a[1] + a[2] + *p + q.y + cq.x;
    sink = s;
    q.x += 1;
    return s;
}

int main()
{
    double arr[3] = {1.5, 2.5, 3.5};
    double d = 7.25;
    double *dp = &d;
    P pt{4, 8.5};
    double r = sum3(arr, dp, pt, pt);
    sink = arr[1] + *dp;
    return r > 0 ? pt.x - 5 : 1;
}
