/* info program: where and why the program stopped. */
#include <string.h>
struct point { int x; int y; };
struct rec { int id; char name[16]; struct point pos; int vals[4]; double w; struct point *next; };
char greeting[] = "hello, world";
const char *msg = "a message";
int numbers[20] = { 1, 1, 1, 1, 1, 1, 2, 3, 4, 5 };
struct rec r = { 7, "seven", { 3, 4 }, { 10, 20, 30, 40 }, 2.5, 0 };
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
    for (int i = 0; i < 3; i++)
        total += square(i);
    r.next = &r.pos;
    return total == 0;
}
