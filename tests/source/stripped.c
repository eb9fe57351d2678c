/* Built with -g, then stripped of its debug information (symbols kept). */
#include <stdio.h>

int global_value = 7;

int compute(int x)
{
    return x * global_value;
}

int main(void)
{
    int r = compute(6);
    printf("r=%d\n", r);
    return 0;
}
