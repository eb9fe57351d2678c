/* Killed by a real-time signal (SIGRTMIN + 4, default action: terminate). */
#include <signal.h>
#include <stdio.h>

int main(void) {
  printf("raising\n");
  fflush(stdout);
  raise(SIGRTMIN + 4);
  printf("not reached\n");
  return 0;
}
