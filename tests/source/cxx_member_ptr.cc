// Pointers to members: data and member functions (plain, virtual, through a base), as gdb
// prints them and names their types.
#include <cstdio>

struct Base {
  int b = 1;
  virtual ~Base() = default;
  virtual int vf(int k) { return b + k; }
};
struct Extra { int e = 2; int ex(int k) { return e * k; } };
struct Item : Base, Extra {
  int x = 3;
  double y = 4.5;
  int get(int k) { return x + k; }
  int vf(int k) override { return x * k; }
};

int main() {
  Item it;
  int Item::*px = &Item::x;
  double Item::*py = &Item::y;
  int Item::*pnull = nullptr;
  int (Item::*pm)(int) = &Item::get;
  int (Item::*pv)(int) = &Item::vf;
  int (Item::*pe)(int) = &Item::ex;
  int (Item::*pn)(int) = nullptr;
  int r = (it.*pm)(1) + (it.*pv)(2) + (it.*pe)(3) + it.*px + (int)(it.*py);
  std::printf("%d %d\n", r, pnull == nullptr && pn == nullptr);
  return 0;
}
