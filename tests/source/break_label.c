/* `break FUNC:LABEL`, `break LABEL` in the current function, `-function F -label L`. */
int total;

int scan(int n)
{
  int i = 0;
 again:
  total += i;
  i++;
  if (i < n)
    goto again;
  if (total > 100)
    goto done;
  total++;
 done:
  return total;
}

int other(int k)
{
 again:
  k--;
  if (k > 0)
    goto again;
  return k;
}

int main(void)
{
  scan(4);
  other(3);
  return 0;
}
