/* gdb's convenience functions: $_isvoid, $_creal/$_cimag, $_gdb_setting, and those of
   gdb's Python library ($_strlen, $_streq, $_memeq, $_regex). */
#include <complex.h>
#include <stdio.h>

double _Complex z = 1.5 + 2.5 * I;
float _Complex zf = 3 + 4 * I;
char name[8] = "hello";
char other[8] = "hellp";
const char *greeting = "world";
int number = 7;

void nothing(void) {}

int main(void)
{
    nothing();
    printf("%s %s %d\n", name, greeting, number);
    return 0;
}
