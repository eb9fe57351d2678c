/* catch syscall: a program that writes, opens and closes. */
#include <fcntl.h>
#include <unistd.h>
int main(void)
{
  write(1, "hello\n", 6);
  int fd = open("/dev/null", O_RDONLY);
  close(fd);
  write(1, "bye\n", 4);
  return 0;
}
