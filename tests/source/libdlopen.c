/* A plugin with debug information, loaded by dlopen.c. */
struct plugin_state {
    int calls;
    const char *last;
};

static struct plugin_state state;

static int plugin_square(int v)
{
    return v * v;
}

int plugin_compute(int n, const char *label)
{
    state.calls++;
    state.last = label;
    int sq = plugin_square(n);
    return sq + label[0];
}
