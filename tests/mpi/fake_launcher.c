/* A launcher-like program exporting the MPIR interface without starting anything.
   `fake_launcher table`: a two-entry table (pids: itself, its parent), then MPIR_Breakpoint.
   `fake_launcher hang`: never reaches MPIR_Breakpoint.
   `fake_launcher abort`: MPIR_Breakpoint with MPIR_debug_state = MPIR_DEBUG_ABORTING. */
#include <string.h>
#include <unistd.h>

struct MPIR_PROCDESC {
    char *host_name;
    char *executable_name;
    int pid;
};

volatile int MPIR_being_debugged = 0;
volatile int MPIR_debug_state = 0;
struct MPIR_PROCDESC *MPIR_proctable = 0;
int MPIR_proctable_size = 0;

void __attribute__((noinline)) MPIR_Breakpoint(void)
{
    __asm__ volatile("" ::: "memory");
}

static struct MPIR_PROCDESC table[2];

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "hang") == 0) {
        for (;;)
            pause();
    }
    if (!MPIR_being_debugged)
        return 5;
    table[0].host_name = "host-a";
    table[0].executable_name = "/bin/rank0";
    table[0].pid = getpid();
    table[1].host_name = "host-b";
    table[1].executable_name = "/bin/rank1";
    table[1].pid = getppid();
    MPIR_proctable = table;
    MPIR_proctable_size = 2;
    MPIR_debug_state = (argc > 1 && strcmp(argv[1], "abort") == 0) ? 2 : 1;
    MPIR_Breakpoint();
    return 0;
}
