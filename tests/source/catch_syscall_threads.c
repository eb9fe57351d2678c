/* catch syscall with two threads: the worker blocks in read until main has written to a
   pipe and closed it; then it writes. Each caught call is ordered by the pipe. */
#include <pthread.h>
#include <unistd.h>
static int p[2];
static void *worker(void *arg)
{
  char c;
  (void)arg;
  while (read(p[0], &c, 1) > 0)
    ;
  write(1, "worker\n", 7);
  return 0;
}
int main(void)
{
  pthread_t t;
  pipe(p);
  pthread_create(&t, 0, worker, 0);
  write(p[1], "x", 1);
  close(p[1]);
  pthread_join(t, 0);
  return 0;
}
