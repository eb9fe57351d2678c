/* `info scope`, `info address` of locals, statics and registers, `info line` of lines
   without code. */
#include <stdio.h>

int global_counter = 3;
static int file_static = 4;
const int konst = 9;

struct pt { int x, y; };
struct pt origin = {1, 2};

int work(int n, struct pt *p)
{
  static int calls;
  int i, acc = 0;
  register int fast = n;
  calls++;
  for (i = 0; i < n; i++)
    {
      int sq = i * i;
      acc += sq + p->x;
    }
  {
    double inner = acc / 2.0;
    acc += (int) inner;
  }
  return acc + fast + calls;
}

void nothing(void)
{
  global_counter++;
}

int main(void)
{
  int r = work(3, &origin);
  nothing();
  printf("%d\n", r + global_counter + file_static + konst);
  return 0;
}
