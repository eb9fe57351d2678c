/* The flags registers as gdb types them: a compare of known values right before the stop
   leaves $eflags at 0x246 ([ PF ZF IF ]). */
volatile int seen = 5;
int limit = 5;

void mark(void)
{
    seen++;
}

int main(void)
{
    if (seen == limit)
        mark();
    return 0;
}
