/* Conditions, ignore counts and temporary breakpoints. */
int seen;

static void visit(int i, int weight)
{
    seen += i * weight;
}

int main(void)
{
    for (int i = 0; i < 10; i++)
        visit(i, i % 3);
    for (int j = 0; j < 5; j++)
        seen -= j;
    return seen == 0;
}
