/* Recursion: `next` over a recursive call stays in the same frame; finish and bt in depth. */
static int fact(int n)
{
    if (n <= 1)
        return 1;
    int sub = fact(n - 1);
    return n * sub;
}

static int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
    int f = fact(5);
    int g = fib(6);
    return f + g == 0;
}
