/* -O2: tail calls (jumps) leave no return address; gdb rebuilds them from call-site info. */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) int leaf(int v)
{
    sink = v;
    return v * 3;
}

__attribute__((noinline)) int middle(int v)
{
    sink = v + 1;
    return leaf(v + 1);
}

__attribute__((noinline)) int top(int v)
{
    sink = v + 2;
    return middle(v * 2);
}

int main(int argc, char **argv)
{
    int v = argc > 1 ? atoi(argv[1]) : 1;
    int r = top(v);
    sink = r;
    return 0;
}
