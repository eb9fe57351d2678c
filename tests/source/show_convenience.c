/* `show convenience`: the variables a session made, newest first, above gdb's own. */
#include <stdio.h>

int counts[4] = {3, 1, 4, 1};

static int add(int a, int b)
{
    return a + b;
}

int main(void)
{
    int total = add(counts[0], counts[1]);
    total = add(total, counts[2]);
    printf("%d\n", total);
    return 0;
}
