/* Functions called from the debugger that wait for another thread (issue 17): gdb resumes
   every thread while a call runs, so a call that asks the worker thread for an answer
   returns; one that makes a thread. The worker raises SIGUSR1 once the main thread spins
   in its own code (request 98); wait_usr1() waits for the handler. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready = 0;
static int request = 0;
static int reply = 0;
static int served = 0;
static volatile int usr1 = 0;
static volatile int spinning = 0;
static volatile int acked = 0;

static void on_usr1(int sig)
{
  (void) sig;
  usr1++;
}

int serve(int q)
{
  served++;
  return q * 2;
}

static void *worker(void *arg)
{
  (void) arg;
  pthread_mutex_lock(&lock);
  ready = 1;
  pthread_cond_broadcast(&cond);
  for (;;)
    {
      while (request == 0)
        pthread_cond_wait(&cond, &lock);
      if (request < 0)
        break;
      if (request == 99)
        raise(SIGUSR1);
      if (request == 98)
        {
          /* Once the main thread spins (in its own code, not in a system call). */
          while (!spinning)
            ;
          raise(SIGUSR1);
          request = 0;
          acked = 1;
          continue;
        }
      reply = serve(request);
      request = 0;
      pthread_cond_broadcast(&cond);
    }
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* Asks the worker thread to double q: waits until it answers. */
int ask(int q)
{
  pthread_mutex_lock(&lock);
  request = q;
  reply = 0;
  pthread_cond_broadcast(&cond);
  while (reply == 0)
    pthread_cond_wait(&cond, &lock);
  int r = reply;
  pthread_mutex_unlock(&lock);
  return r;
}

static void *square(void *arg)
{
  long v = (long) arg;
  return (void *) (v * v);
}

/* Makes a thread and waits for its result. */
long spawn(long v)
{
  pthread_t t;
  void *r;
  pthread_create(&t, NULL, square, (void *) v);
  pthread_join(t, &r);
  return (long) r;
}

/* Waits until the worker thread's SIGUSR1 handler has run. */
int wait_usr1(void)
{
  while (usr1 == 0)
    ;
  return usr1;
}

void stop_here(int n)
{
  (void) n;
}

int main(void)
{
  pthread_t t;
  signal(SIGUSR1, on_usr1);
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  while (!ready)
    pthread_cond_wait(&cond, &lock);
  pthread_mutex_unlock(&lock);
  stop_here(1);
  int a = ask(5);
  stop_here(a);
  pthread_mutex_lock(&lock);
  request = 98;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
  spinning = 1;
  while (!acked)
    ;
  stop_here(usr1);
  pthread_mutex_lock(&lock);
  request = -1;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  printf("%d %d\n", a, served);
  return 0;
}
