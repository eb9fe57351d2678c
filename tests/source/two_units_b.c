/* The second unit of two_units: same-named statics, different values. */
static int counter = 500;
static const char *origin = "second unit";

static int bump(int by)
{
    counter -= by;
    return counter;
}

int second_unit_bump(int by)
{
    return bump(by * 10);
}

int second_unit_value(void)
{
    return counter + origin[1];
}
