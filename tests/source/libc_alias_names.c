// glibc's aliases: ld.so's assembler `strchr` has two subprograms at the same code in its
// debug information, `strchr` and (after it) `index`; `rindex`/`strrchr` are libc's
// indirect functions without debug information.
#include <string.h>
volatile int sink;
int main(void)
{
    const char *p = index("a/b", '/');
    sink = p != 0;
    return 0;
}
