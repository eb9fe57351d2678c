/* A signal arrives (and is handled) while the user steps over lines. */
#include <signal.h>

static volatile int handled;

static void on_usr1(int sig)
{
    handled += sig == SIGUSR1;
}

static int work(int i)
{
    raise(SIGUSR1);
    return i * 2;
}

int main(void)
{
    signal(SIGUSR1, on_usr1);
    int sum = 0;
    for (int i = 0; i < 3; i++) {
        sum += work(i);
        raise(SIGUSR1);
    }
    return sum + handled == 0;
}
