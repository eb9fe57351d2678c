/* Compiled without debug information: `step` must step over these. */
int nd_length(const char *s)
{
    int n = 0;
    while (s[n])
        n++;
    return n;
}

void nd_sort(int *v, int n, int (*cmp)(const int *, const int *))
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && cmp(&v[j - 1], &v[j]) > 0; j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}
