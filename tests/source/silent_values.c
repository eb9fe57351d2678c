/* Values cohort once printed wrong without an error: a function's local or static by
   FUNCTION::VARIABLE in the selected frame, 64-bit enumerators, long double literals and
   _Float128 arithmetic, a watchpoint's old value after `set var`. */
enum big { J = 1, K = 0xF000000000000000ULL };
enum big bigval = K;
typedef _Float128 q_t;
struct S { int a; _Float128 q; long double l; } s = { 1, -2.375, 3.5L };
_Float128 arr[2] = { -2.375, 1.5 };
__float128 gq = 6.25;
q_t tq = -2.375;
int x = 0;

static int rec(int n)
{
    int local = n * 10;
    static int st = 5;
    st++;
    if (n == 0)
        return local;
    return rec(n - 1) + local;
}

static _Float128 give(_Float128 a, long double b)
{
    _Float128 loc = a * 2;
    return loc + b;
}

static long double ldgive(long double v)
{
    return v / 3;
}

int main(void)
{
    x = 5;
    x = 7;
    x = 9;
    rec(3);
    _Float128 m = give(-2.375, 1.0L);
    long double n = ldgive(1.0L);
    return bigval == J && m > 0 && n > 0;
}
