// C++ references used in expressions: subscript, dereference, sizeof, members, casts,
// arithmetic and conditions all go through the reference to the object it refers to.
struct P {
    int x;
    double y;
};

static double sum3(double (&a)[3], double *&p, P &q, const P &cq, int &n)
{
    double s = a[0] + a[1] + a[2] + *p + q.y + cq.x + n;
    return s;
}

int main()
{
    double arr[3] = {1.5, 2.5, 3.5};
    double d = 7.25;
    double *dp = &d;
    P pt{4, 8.5};
    int n = 6;
    double r = sum3(arr, dp, pt, pt, n);
    return r > 0 ? 0 : 1;
}
