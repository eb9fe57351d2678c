/* set cwd takes effect for the program; show cwd, startup-with-shell, disable-randomization,
   breakpoint pending. */
#include <unistd.h>

char dir[256];

int stop(void)
{
    return dir[0];
}

int main(void)
{
    if (getcwd(dir, sizeof dir) == 0)
        dir[0] = '?';
    return stop();
}
