/* catch syscall group:NAME, numbers, and the names gdb rejects. */
#include <stdio.h>
#include <sys/wait.h>
int main(void)
{
  puts("main");
  waitpid(-1, 0, WNOHANG); /* no child: wait4 fails at once */
  return 0;
}
