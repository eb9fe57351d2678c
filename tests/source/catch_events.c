/* catch signal, catch fork and catch vfork: a program that raises two signals, forks a child
   that execs /bin/true, and waits for it; SIGCHLD is blocked until then. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
static void h(int s) { (void)s; }
int main(void)
{
  signal(SIGUSR1, h);
  signal(SIGUSR2, h);
  raise(SIGUSR1);
  raise(SIGUSR2);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, 0);
  pid_t p = fork();
  if (p == 0) { execl("/bin/true", "true", (char *)0); _exit(1); }
  waitpid(p, 0, 0);
  sigprocmask(SIG_UNBLOCK, &chld, 0); /* SIGCHLD arrives here */
  printf("done\n");
  return 0;
}
