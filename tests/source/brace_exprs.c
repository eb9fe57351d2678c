/* gdb's brace expressions: {TYPE} ADDR and {a, b, c} array literals. */
#include <stdio.h>

typedef int v4si __attribute__ ((vector_size (16)));

struct S { int a; int b; };
struct B { unsigned lo : 3; unsigned hi : 5; int k; int sb : 4; };

struct S s = {3, 4};
int arr[3] = {7, 8, 9};
char c = 1;
long big = 0x1122334455667788;
double dbl = 2.5;
int *ptr = &arr[1];
v4si vec = {1, 1, 1, 1};
struct B bits = {1, 2, 3, -2};

int main(void)
{
    int x = 42;
    printf("%d %d %d\n", x, s.a, arr[0]);
    return 0;
}
