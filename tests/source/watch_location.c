/* watch -location, rwatch -l, show user, hbreak/thbreak, save breakpoints of them. */
int counter;

static int square(int v)
{
    int sq = v * v;
    counter += sq;
    return sq;
}

int main(void)
{
    int total = 0;
    for (int i = 0; i < 3; i++)
        total += square(i);
    return total == 0;
}
