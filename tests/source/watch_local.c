/* A watchpoint on a local variable ends when its frame returns. */
static int accumulate(int n)
{
    int acc = 0;
    for (int i = 1; i <= n; i++)
        acc += i;
    acc *= 2;
    return acc;
}

int main(void)
{
    int a = accumulate(3);
    int b = accumulate(2);
    return a + b == 0;
}
