/* watch $pc (a software watchpoint on a register: no address column) and watch EXPR if COND. */
int g;
int f(int x) { return x + 1; }
int main(void) { g = f(1); g = f(g); return g; }
