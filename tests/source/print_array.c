/* set print array: arrays one element a line, nested arrays, arrays of structures, with
   set print pretty, array-indexes, the element limit and repeats. */
struct point { int x; int y; };
struct box { int id; int v[3]; struct point corners[2]; char name[4]; };
int a1[3] = { 1, 2, 3 };
int a2[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
struct point pts[2] = { { 1, 2 }, { 3, 4 } };
struct box b = { 7, { 1, 2, 3 }, { { 5, 6 }, { 7, 8 } }, "abc" };
struct box boxes[2];
int same[12] = { 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5 };
int many[30];
char s[6] = "hello";
char names[2][4] = { "ab", "cd" };
double d2[2] = { 1.5, -2.25 };
struct point *pp[2] = { &pts[0], 0 };

int take(struct box copy, int n)
{
    int local[2] = { n, n + 1 };
    struct box mine = copy;
    return copy.v[0] + local[1] + mine.id;
}

int main(void)
{
    boxes[1] = b;
    many[3] = 4;
    return take(b, 2);
}
