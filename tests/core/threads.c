#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int tids[2];

static void *worker(void *arg)
{
  long id = (long) arg;
  tids[id] = syscall(SYS_gettid);
  for (;;)
    pause();
  return NULL;
}

/* Whether thread TID sleeps in the kernel (it has reached pause). */
static int sleeping(int tid)
{
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  return p && p[1] == ' ' && p[2] == 'S';
}

static void boom(int code)
{
  int *p = (int *) (long) code;
  *p = code;
}

int main(void)
{
  pthread_t t[2];
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, (void *) i);
  for (int i = 0; i < 2; i++)
    while (!tids[i] || !sleeping(tids[i]))
      usleep(1000);
  boom(16);
  return 0;
}
