/* gdb's command language: user commands, if/while, breakpoint commands, dprintf, printf. */
#include <string.h>
struct point { int x; int y; };
char greeting[] = "hello, world";
const char *msg = "a message";
int numbers[6] = { 1, 2, 3, 5, 8, 13 };
double ratio = 2.5;
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
    for (int i = 0; i < 4; i++)
        total += square(i);
    return total == 0;
}
