/* break -q, $bpnum, watch EXPR if COND, up-silently, with, rbreak, $_exitcode. */
struct point { int x; int y; };
struct point origin = { 3, 4 };
int numbers[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
int counter;

static int square(int v)
{
    int sq = v * v;
    counter += sq;
    return sq;
}

static int sum_squares(int n)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += square(i);
    return total;
}

int main(void)
{
    int t = sum_squares(5);
    return t == 30 ? 0 : 1;
}
