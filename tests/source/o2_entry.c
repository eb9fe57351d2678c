/* -O2: entry values (x@entry) only where the caller is known for sure: not across a tail
   call whose chain is ambiguous, not in functions that can tail-call themselves. */
#include <stdlib.h>

volatile int sink;

__attribute__((noipa)) void opaque(void)
{
    sink++;
}

__attribute__((noinline)) int leaf(int sten)
{
    sink = sten;
    opaque();
    return sink * 3;
}

/* Two tail calls to leaf: the chain from upper to leaf is ambiguous after mid. */
__attribute__((noinline)) int mid(int x)
{
    sink = x;
    if (x & 1)
        return leaf(x + 1);
    return leaf(x + 2);
}

__attribute__((noinline)) int upper(int y)
{
    sink = y;
    return mid(y + 5);
}

__attribute__((noinline)) int top(int v)
{
    int r = upper(7);
    sink = r + v;
    return r + 1;
}

/* Mutual tail recursion: their entry values are never trusted. */
__attribute__((noinline)) int pong(int n);
__attribute__((noinline)) int ping(int n)
{
    sink = n;
    opaque();
    if (n <= 0)
        return sink;
    return pong(n - 1);
}

__attribute__((noinline)) int pong(int n)
{
    sink = n;
    opaque();
    if (n <= 0)
        return sink + 1;
    return ping(n - 1);
}

/* A direct call: the entry value is the caller's. */
__attribute__((noinline)) int direct(int d)
{
    sink = d;
    opaque();
    return sink + d;
}

int main(int argc, char **argv)
{
    int v = argc > 1 ? atoi(argv[1]) : 1;
    int r = top(v);
    sink = r;
    r = ping(3);
    sink = r;
    r = direct(v * 4);
    sink = r;
    return 0;
}
