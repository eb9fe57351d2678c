// A struct only declared here, defined (with debug information) in a shared library the
// program loads: gdb finds the full definition there.
#include <dlfcn.h>
#include <stdio.h>

struct Opaque;
struct Node;
struct Holder {
    Opaque *o;
    Node *list;
    int n;
};

int main()
{
    void *h = dlopen("./libcxx_opaque.so", RTLD_NOW);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    auto make = (Opaque * (*)()) dlsym(h, "make_opaque");
    auto list = (Node * (*)()) dlsym(h, "make_list");
    Holder hold{make(), list(), 1};
    Opaque *p = hold.o;
    return hold.n == 0 && p != nullptr;
}
