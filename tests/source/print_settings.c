/* set print pretty|address|array-indexes|null-stop|union|elements|repeats, print -OPTION --,
   show of settings; globals in .data and .bss before the program runs. */
struct point { int x; int y; };
struct empty { };
struct line { struct point a, b; };
struct holder {
    int n;
    struct point pts[2];
    struct line ln;
    int arr2[2][3];
    union { int i; float f; } u;
    struct { int q; } anon;
    char s[8];
    int (*fp)(int);
    struct point *pp;
    struct empty e;
    int bits : 3;
};
struct holder h = { 2, { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } },
                    { { 1, 2, 3 }, { 4, 5, 6 } }, { 9 }, { 10 }, "abc", 0, 0, {}, 1 };
struct point pts[3] = { { 1, 2 }, { 1, 2 }, { 1, 2 } };
struct point many[12];
int matrix[2][2] = { { 1, 2 }, { 3, 4 } };
int numbers[20] = { 1, 1, 1, 1, 1, 1, 2, 3, 4, 5 };
const char *msg = "a message";
int zeroed;
static long bss_array[4];

int square(int v)
{
    return v * v;
}

int main(void)
{
    h.fp = square;
    h.pp = &pts[1];
    return square(h.n) + (int)bss_array[0] + zeroed;
}
