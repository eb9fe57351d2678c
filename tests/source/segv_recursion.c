/* A segmentation fault deep in a recursion. */
#include <stddef.h>

struct cell {
    int value;
    struct cell *next;
};

static int walk(const struct cell *c, int depth)
{
    int here = depth * 3;
    if (depth == 6)
        return c->value + here;
    return walk(c, depth + 1) + here;
}

int main(void)
{
    struct cell *nowhere = NULL;
    int r = -1;
    r = walk(nowhere, 0);
    return r;
}
