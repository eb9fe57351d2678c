/* A host program for the CUDBG test double (cudbg_double.c). Like the CUDA runtime with the
 * real driver, it loads its "libcuda" (argv[1]) with dlopen and finds cuInit with dlsym; it
 * initialises the driver, raises a SIGURG of its own, launches bitreverse<<<2,64>>> on 128
 * words and checks the result. */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*init_fn)(unsigned int);
typedef int (*launch_fn)(const char *, uint32_t, uint32_t, uint32_t *, uint32_t);

static volatile sig_atomic_t urgent;

static void on_urg(int sig)
{
    (void)sig;
    urgent++;
}

static uint32_t reversed(uint32_t v)
{
    uint32_t r = 0;
    for (int b = 0; b < 32; b++)
        if (v & (1u << b))
            r |= 1u << (31 - b);
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s LIBCUDA\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    init_fn init = (init_fn)dlsym(lib, "cuInit");
    launch_fn launch = (launch_fn)dlsym(lib, "cohortDoubleLaunch");
    if (!init || !launch)
        return 2;
    uint32_t data[128];
    for (int i = 0; i < 128; i++)
        data[i] = 0x1000u + (uint32_t)i;
    if (init(0) != 0) {
        fprintf(stderr, "cuInit failed\n");
        return 2;
    }
    /* The program's own SIGURG (the debugger's wake-up signal) must reach it. */
    signal(SIGURG, on_urg);
    raise(SIGURG);
    if (launch("bitreverse", 2, 64, data, 128) != 0) {
        fprintf(stderr, "launch failed\n");
        return 3;
    }
    int bad = 0;
    for (int i = 0; i < 128; i++)
        if (data[i] != reversed(0x1000u + (uint32_t)i))
            bad++;
    printf("%s (SIGURG handled %d time%s)\n", bad ? "FAILED" : "PASSED", (int)urgent,
           urgent == 1 ? "" : "s");
    return bad != 0;
}

/* nvcc puts a CUDA program's GPU code in a section of its own, which is how `cohort launch`
 * recognises a CUDA program (cuda-backend/src/detect.rs); the GPU code here is the double's,
 * so the section only marks the program. */
__attribute__((section(".nv_fatbin"), used)) static const unsigned char nv_fatbin[8];

/* nvcc's host stub of a kernel: host code whose line is in the .cu file (the kernel's last
 * line, bitreverse.cu:20), called by the launch (the double calls it, as the runtime's launch
 * does). So `break bitreverse.cu:15` first resolves on the host, at line 20, as with nvcc, and
 * the driver's module then has line 15 itself. Built with -DHOST_STUB (testing::build_double_with_stub). */
#ifdef HOST_STUB
uint32_t *stub_data;
#line 20 "bitreverse.cu"
void __device_stub__bitreverse(uint32_t *data) { stub_data = data; }
#endif
