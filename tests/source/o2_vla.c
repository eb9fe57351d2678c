/* -O2: a C variable-length array whose bounds live in artificial variables. */
#include <stdlib.h>

volatile double dsink;

__attribute__((noinline)) double vla_sum(int n, int m)
{
    double grid[n][m];
    double row[m];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            grid[i][j] = i * 10 + j;
    for (int j = 0; j < m; j++)
        row[j] = grid[n - 1][j] * 0.5;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += grid[i][m - 1] + row[i % m];
    dsink = s;
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    double s = vla_sum(n, 3);
    dsink = s;
    return 0;
}
