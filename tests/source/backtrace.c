/* A four-deep call chain with arguments and locals in every frame. */
struct config {
    const char *name;
    int level;
};

static int leaf(int depth, const char *tag)
{
    int local = depth * 100;
    return local + tag[0];
}

static int middle(int depth, double scale)
{
    int partial = (int)(scale * depth);
    {
        int inner = partial + 1;
        partial = leaf(depth + 1, "leafy") + inner;
    }
    return partial;
}

static int top(const struct config *cfg, int n)
{
    int results[3] = {n, n + 1, n + 2};
    char label = 'T';
    return middle(cfg->level, 2.5) + results[2] + label;
}

int main(void)
{
    struct config cfg = {"main-config", 4};
    int r = 0;
    r = top(&cfg, 7);
    return r == 0;
}
