/* `step` into functions without line information (step_nodebug_nodebug.c, built -g0) steps
 * over them; a callback with line information called from such a function stops only at a
 * breakpoint. */
int nd_length(const char *s);
void nd_sort(int *v, int n, int (*cmp)(const int *, const int *));

static int calls;

static int by_value(const int *a, const int *b)
{
    calls++;
    return (*a > *b) - (*a < *b);
}

static int measure(const char *s)
{
    return nd_length(s);
}

int main(void)
{
    int v[5] = {42, 7, 19, 3, 11};
    int n = nd_length("seven");
    n += measure("abc");
    nd_sort(v, 5, by_value);
    int first = v[0];
    v[0] = 100;
    nd_sort(v, 5, by_value);
    return first + n + calls == 0;
}
