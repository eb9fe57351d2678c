/* Scopes: file statics, function statics, block-scope shadowing, nested blocks. */
static int counter = 100;
int shadow = 1;

static int bump(int by)
{
    static int calls;
    calls++;
    counter += by;
    return calls;
}

static int nested(int shadow, int depth)
{
    int result = shadow * 10;
    {
        int shadow = 2000;
        int only_here = depth + 1;
        result += shadow;
        {
            double shadow = 0.25;
            result += (int)(shadow * 4) + only_here;
        }
        result += shadow;
    }
    return result;
}

int main(void)
{
    int total = 0;
    for (int i = 0; i < 2; i++) {
        int step = i + 1;
        total += bump(step);
    }
    total += nested(30, 7);
    return total == 0;
}
