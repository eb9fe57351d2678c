/* Calls into the C library through the PLT (lazily bound: the first call goes through the
 * dynamic linker's resolver). With the library's debug information (libc6-dbg), `step`
 * enters printf and puts as gdb does. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    printf("hello %d\n", 1);
    int v = atoi("42");
    puts("x");
    printf("again %d\n", v);
    return v - 42;
}
