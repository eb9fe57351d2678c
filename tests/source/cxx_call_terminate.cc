// Functions called from expressions that throw (issue 17).
#include <stdexcept>
#include <cstdio>

int depth = 0;

int thrower(int n)
{
  depth = n;
  if (n > 2)
    throw std::runtime_error("too big");
  return n * 10;
}

int caught(int n)
{
  try
    {
      return thrower(n);
    }
  catch (const std::exception &)
    {
      return -1;
    }
}

int main()
{
  int a = caught(1);
  int b = caught(5);
  std::printf("%d %d\n", a, b);
  return 0;
}
