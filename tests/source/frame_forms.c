/* frame/select-frame/info frame by level, address and function; faas, taas, tfaas. */
int depth_seen;

static int leaf(int w)
{
    depth_seen = w;
    return w + 1;
}

static int middle(int v)
{
    int m = v * 2;
    return leaf(m) + 1;
}

static int outer(int u)
{
    int o = u + 3;
    return middle(o);
}

int main(void)
{
    int r = outer(4);
    return r == 0;
}
