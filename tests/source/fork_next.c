/* `next` over fork() and vfork(): a child must not inherit the debugger's breakpoints (an
 * int3 left in it kills it with SIGTRAP). gdb takes them out of a forked child, out of the
 * shared memory while a vforked child runs, and lets the child go. Each child calls a
 * function with a breakpoint on it and exits with a code its parent prints. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_work(int x) {
    return x + 1;
}

static int status_of(pid_t p) {
    int st = 0;
    waitpid(p, &st, 0);
    return st;
}

int main(void) {
    pid_t p = fork();
    if (p == 0)
        _exit(child_work(2));
    int a = status_of(p);
    pid_t q = vfork();
    if (q == 0)
        _exit(child_work(3));
    int b = status_of(q);
    printf("%d %d\n", a, b);
    return 0;
}
