/* frame apply, faas, shell, save breakpoints. */
int counter;

static int square(int v)
{
    int sq = v * v;
    counter += sq;
    return sq;
}

static int twice(int w)
{
    return 2 * square(w + 1);
}

int main(void)
{
    int total = 0;
    for (int i = 0; i < 3; i++)
        total += twice(i);
    return total == 0;
}
