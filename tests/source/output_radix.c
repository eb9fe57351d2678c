/* set output-radix 16 and 8: integers, characters and booleans in that radix. */
#include <stdbool.h>
enum color { RED, GREEN = 20 };
struct s { int a; char c; bool b; enum color e; double d; int *p; char name[4]; unsigned char u; short sh; long l; };
int x = 42;
struct s v = { 255, 'A', true, GREEN, 2.5, &x, "ab", 200, -3, -1 };
int main(void) { return 0; }
