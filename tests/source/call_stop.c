/* Functions called from the debugger that stop before they return (gdb's dummy frames):
   a breakpoint inside the called function, a signal inside it, calls made while stopped
   inside one, and the ways back (finish, continue). */
#include <stdio.h>

int counter = 0;

int inner(int k)
{
  int r = k * 3;
  counter += r;
  return r;
}

int outer(int a, int b)
{
  int s = a + b;
  s += inner(s);
  return s;
}

int crash(int *p)
{
  int v = 1;
  return *p + v;
}

void stop_here(int x)
{
  counter += x;
}

int main(void)
{
  int n = 5;
  int m = 7;
  stop_here(n);
  counter = n + m;
  printf("%d\n", counter);
  return 0;
}
