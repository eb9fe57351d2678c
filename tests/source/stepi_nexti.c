/* stepi / nexti at the source level, with `x/i $pc` and `display/i $pc`. */
static int twice(int v)
{
    return v + v;
}

int main(void)
{
    int a = 5;
    int b = twice(a);
    int c = twice(b) + a;
    return c == 0;
}
