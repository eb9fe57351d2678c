/* until (leaving a loop), until LINE, advance LINE. */
static int tripled(int v)
{
    return 3 * v;
}

int main(void)
{
    int acc = 0;
    for (int i = 0; i < 5; i++) {
        acc += tripled(i);
    }
    acc -= 1;
    int k = 0;
    while (k < 100)
        k += 7;
    acc += k;
    acc = tripled(acc);
    return acc == 0;
}
