/* Expressions: arithmetic, comparisons, logic, bit operations, casts, sizeof, pointers. */
int a = 17, b = 5;
unsigned int u = 3;
double x = 2.5;
long big = 1L << 40;
char str[] = "expression";
int nums[6] = {10, 20, 30, 40, 50, 60};
int *p = &nums[2];
struct rec { int k; double v; } recs[2] = {{1, 0.5}, {2, 1.5}};
struct rec *rp = recs;

int main(void)
{
    int local = a * b;
    return local - 85;
}
