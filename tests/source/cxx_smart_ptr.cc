// std::unique_ptr and std::shared_ptr as gdb's libstdc++ printers show them, and their
// xmethods (*p, p->member, p->size() of a pointed-to vector). The shared pointers point to
// globals, with a deleter that does nothing, so their addresses are not the heap's.
#include <memory>
#include <vector>

struct Pt {
    int x;
    double y;
};

Pt global_pt{3, 4.5};
int global_i = 9;
std::vector<int> global_v{1, 2, 3};

static void keep_int(int *) {}
static void keep_pt(Pt *) {}
static void keep_vec(std::vector<int> *) {}

int main()
{
    std::unique_ptr<Pt> none;
    std::shared_ptr<int> sp(&global_i, keep_int);
    std::shared_ptr<int> sp2 = sp;
    std::weak_ptr<int> wp = sp;
    std::shared_ptr<Pt> spt(&global_pt, keep_pt);
    std::shared_ptr<std::vector<int>> spv(&global_v, keep_vec);
    std::shared_ptr<int> empty;
    std::unique_ptr<Pt> up(new Pt{1, 2.5});
    int r = up->x + *sp;
    return r == 0;
}
