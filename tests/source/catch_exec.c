/* catch exec: the program runs itself again with an argument (the new image computes and
   prints), which then runs /bin/true, a program with no debug information. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int depth(int n) { return n > 0 ? depth(n - 1) + 1 : 0; }
int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "again") == 0) {
    int d = depth(2);
    printf("new image %d\n", d);
    fflush(stdout);
    execl("/bin/true", "true", (char *)0);
    return 1;
  }
  printf("old image\n");
  fflush(stdout);
  execl(argv[0], argv[0], "again", (char *)0);
  return 1;
}
