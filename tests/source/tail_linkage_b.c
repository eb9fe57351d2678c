/* The other unit of tail_linkage.c: helper_impl, known to the linker as helper_linkage,
   tail-calls deep. */
volatile int sink;

__attribute__((noinline)) int deep(int x)
{
  sink = x;
  return x * 3 + 1;
}

int helper_impl(int x) __asm__("helper_linkage");

int helper_impl(int x)
{
  return deep(x + 1);
}
