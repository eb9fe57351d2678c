/* Source listing: list, list N, list FUNC, list FILE:N,M, repeated list; info source. */
#include <stdio.h>

static int helper_one(int x)
{
    int y = x + 1;
    return y * 2;
}

static int helper_two(int x)
{
    int z = x - 1;
    return z * 3;
}

static int helper_three(int a, int b)
{
    if (a > b)
        return a - b;
    return b - a;
}

int main(void)
{
    int a = helper_one(1);
    int b = helper_two(2);
    int c = helper_three(a, b);
    printf("%d %d %d\n", a, b, c);
    return 0;
}
