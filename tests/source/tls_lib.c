/* A dlopen'd library with its own thread-local variable (dynamic TLS, module id > 1). */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
    void *h = dlopen("./libtls_lib.so", RTLD_NOW);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    int (*bump)(int) = (int (*)(int))dlsym(h, "bump");
    int a = bump(2);
    int b = bump(3);
    printf("%d %d\n", a, b);
    return 0;
}
