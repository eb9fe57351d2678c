/* Displays in an inlined function (gcc -O2): its own block; the caller's locals are not in
   scope there (gdb's local look-up stops at the inlined function). */
int g;
static inline int sq(int v) {
  int w = v * v;
  g += w;
  return w;
}
int __attribute__((noinline)) work(int a) {
  int s = 0;
  for (int i = 0; i < a; i++)
    s += sq(i + a);
  return s;
}
int main(void) { return work(3) & 1; }
