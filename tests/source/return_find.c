/* `return` pops frames (with a value converted to the function's return type), `find`
   searches memory. */

char buf[64] = "hello world, hello gdb";
short shorts[8] = {1, 2, 3, 0x1234, 5, 0x1234, 7, 8};
int ints[6] = {10, 20, 30, 40, 20, 60};
long longs[4] = {100, 200, 300, 200};
int counter;

int leaf(int x)
{
  int y = x * 2;
  return y + 1;
}

long lleaf(long d)
{
  return d * 3;
}

void vleaf(int k)
{
  counter = k;
}

int middle(int a)
{
  int r = leaf(a);
  int s = (int) lleaf(a);
  int z = 0;
  vleaf(a);
  z = counter;
  return r + s + z;
}

int main(void)
{
  int v = middle(4);
  int w = middle(5);
  buf[0] = 'H';
  return v + w > 1000;
}
