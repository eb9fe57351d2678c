/* Loads ./libdlopen.so (built with debug information) at run time and calls into it. */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
    void *h = dlopen("./libdlopen.so", RTLD_NOW);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    int (*fn)(int, const char *) = (int (*)(int, const char *))dlsym(h, "plugin_compute");
    int r = fn(6, "six");
    printf("plugin_compute=%d\n", r);
    dlclose(h);
    return 0;
}
