/* A call to a function declared under its assembler (linkage) name, defined in the other
   unit (tail_linkage_b.c), which tail-calls deep(): gdb finds the declaration's target by
   its linkage name and shows the tail call frame between deep and main. */
extern int helper(int) __asm__("helper_linkage");

int main(void)
{
  volatile int v = 4;
  return helper(v) == 16 ? 0 : 1;
}
