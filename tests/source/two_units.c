/* Two compilation units, each with a static variable and a static function named alike. */
static int counter = 10;
static const char *origin = "first unit";

static int bump(int by)
{
    counter += by;
    return counter;
}

int second_unit_bump(int by);
int second_unit_value(void);

int main(void)
{
    int a = bump(1);
    int b = second_unit_bump(2);
    a += bump(3);
    return a + b + second_unit_value() + origin[0] == 0;
}
