/* enable once / enable delete / enable count: dispositions in info breakpoints. */
int counter;

static int bump(int v)
{
    counter += v;
    return counter;
}

static int twice(int v)
{
    return 2 * v;
}

int main(void)
{
    int t = 0;
    for (int i = 0; i < 6; i++) {
        t += bump(i);
        t += twice(i);
    }
    return t == 0;
}
