/* GCC vector types: gdb computes with them element by element. */
#include <stdio.h>

typedef int v4si __attribute__ ((vector_size (16)));
typedef unsigned int v4su __attribute__ ((vector_size (16)));
typedef float v4sf __attribute__ ((vector_size (16)));
typedef double v2df __attribute__ ((vector_size (16)));
typedef char v8qi __attribute__ ((vector_size (8)));
typedef short v4hi __attribute__ ((vector_size (8)));

struct S { int a; int b; };

v4si a = {1, 2, 3, 4};
v4si b = {10, 20, 30, 40};
v4su u = {1, 2, 3, 0xffffffff};
v4sf f = {1.5, 2.5, 3.5, 4.5};
v2df d = {0.25, -8};
v8qi c = {1, 2, 3, 4, 5, 6, 7, 8};
v4hi h = {-1, 300, 7, 0};
struct S s = {3, 4};
int arr[3] = {7, 8, 9};

int main(void)
{
    v4si local = a * 3;
    printf("%d %d\n", local[0], s.a);
    return 0;
}
