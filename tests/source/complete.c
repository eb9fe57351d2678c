/* `complete`: command names, info/set/show subcommands, symbols. */
int g;
int h;

void bump(int k)
{
  g += k;
  h = g * 2;
}

int main(void)
{
  int i;
  for (i = 0; i < 3; i++)
    bump(i + 1);
  g = 100;
  return 0;
}
