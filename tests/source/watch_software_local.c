/* A software watchpoint on a local ends when its frame returns, as gdb says. */
int g;

int sum(int n)
{
  int acc = 0;
  int i;
  for (i = 1; i <= n; i++)
    acc += i;
  return acc;
}

int main(void)
{
  g = sum(3);
  g += sum(2);
  return 0;
}
