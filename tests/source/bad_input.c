/* A small program for commands that go wrong. */
struct thing {
    int a;
};

struct thing one = {1};
int numbers[3] = {1, 2, 3};

static int twice(int v)
{
    return 2 * v;
}

int main(void)
{
    int local = twice(one.a);
    return local == 0;
}
