/* Breakpoints by function, file:line, file:function and on a line without code. */
#include <stdio.h>

int total;

static int add(int a, int b)
{
    int s = a + b;
    total += s;
    return s;
}

static void report(const char *label, int value)
{
    /* Nothing but a comment on this line. */

    total -= value;
    if (label[0] == 'x')
        total = 0;
}

int main(void)
{
    int r = 0;
    for (int i = 0; i < 4; i++)
        r += add(i, 10 * i);
    report("sum", r);
    return total != 0;
}
