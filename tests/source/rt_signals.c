/* Real-time signals and glibc's internal SIGCANCEL (32): one raised in the main thread, one a
   thread sends to itself, and a pthread_cancel of a thread blocked in pause(). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int got[65];

static void on_signal(int s) { got[s]++; }

static void *worker(void *arg) {
  (void)arg;
  pthread_kill(pthread_self(), SIGRTMIN + 3);
  return NULL;
}

/* The sleeper's thread id, once it runs. */
static volatile int sleeper_tid;

static void *sleeper(void *arg) {
  (void)arg;
  sleeper_tid = (int)syscall(SYS_gettid);
  for (;;)
    pause();
  return NULL;
}

/* Wait until the sleeper sleeps in pause(): only then does pthread_cancel send SIGCANCEL
   (a thread not yet in a cancellation point just finds the request when it gets there). */
static void wait_until_sleeping(void) {
  char path[64], buf[512];
  while (sleeper_tid == 0)
    usleep(1000);
  snprintf(path, sizeof path, "/proc/self/task/%d/stat", sleeper_tid);
  for (;;) {
    FILE *f = fopen(path, "r");
    if (f != NULL) {
      size_t n = fread(buf, 1, sizeof buf - 1, f);
      fclose(f);
      buf[n] = 0;
      char *p = strrchr(buf, ')');
      if (p != NULL && p[1] == ' ' && p[2] == 'S')
        return;
    }
    usleep(1000);
  }
}

int main(void) {
  pthread_t t;
  void *res;
  signal(SIGRTMIN + 2, on_signal);
  signal(SIGRTMIN + 3, on_signal);
  raise(SIGRTMIN + 2);
  printf("after raise: %d\n", got[SIGRTMIN + 2]);
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  printf("after thread: %d\n", got[SIGRTMIN + 3]);
  pthread_create(&t, NULL, sleeper, NULL);
  wait_until_sleeping();
  pthread_cancel(t);
  pthread_join(t, &res);
  printf("cancelled: %d\n", res == PTHREAD_CANCELED);
  raise(SIGRTMIN + 2);
  raise(SIGRTMIN + 3);
  printf("done: %d %d\n", got[SIGRTMIN + 2], got[SIGRTMIN + 3]);
  return 0;
}
