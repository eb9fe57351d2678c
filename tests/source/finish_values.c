/* `finish` out of functions returning each kind of value. */
struct pair {
    int first;
    double second;
};

struct big {
    long a, b, c, d;
};

static const char greeting[] = "hello";
int counter;

int ret_int(int x) { return x * 7 - 100; }
double ret_double(double x) { return x / 4; }
float ret_float(float x) { return x * 2; }
char ret_char(int i) { return greeting[i]; }
unsigned long ret_ulong(void) { return 0xfedcba9876543210UL; }
short ret_short(void) { return -12; }
_Bool ret_bool(int x) { return x > 3; }
const char *ret_string(void) { return greeting + 1; }
int *ret_pointer(void) { return &counter; }
struct pair ret_pair(int n) { struct pair p = {n, n * 1.5}; return p; }
struct big ret_big(long n) { struct big b = {n, n + 1, n + 2, n + 3}; return b; }
void ret_void(void) { counter++; }

int main(void)
{
    int i = ret_int(3);
    double d = ret_double(9.0);
    float f = ret_float(1.25f);
    char c = ret_char(1);
    unsigned long ul = ret_ulong();
    short s = ret_short();
    _Bool b = ret_bool(i);
    const char *str = ret_string();
    int *p = ret_pointer();
    struct pair pr = ret_pair(4);
    struct big bg = ret_big(10);
    ret_void();
    return i + (int)d + (int)f + c + (int)ul + s + b + str[0] + *p + pr.first + (int)bg.d;
}
