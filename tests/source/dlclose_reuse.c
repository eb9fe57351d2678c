/* Loads ./libdlclose_reuse.so, calls it, closes it, then loads ./libdlclose_reuse_b.so, which
 * the dynamic linker maps where the first one was: addresses there belong to the second
 * library only (Open MPI loads and unloads its components the same way in MPI_Init). */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
    void *a = dlopen("./libdlclose_reuse.so", RTLD_NOW);
    if (!a) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    int (*fa)(int) = (int (*)(int))dlsym(a, "alpha");
    printf("alpha=%d\n", fa(1));
    dlclose(a);
    void *b = dlopen("./libdlclose_reuse_b.so", RTLD_NOW);
    if (!b) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    int (*fb)(int) = (int (*)(int))dlsym(b, "beta");
    printf("beta=%d\n", fb(2));
    dlclose(b);
    return 0;
}
