/* Arrays: multi-dimensional, variable-length, char arrays, repeated elements, long arrays. */
#include <string.h>

int grid[3][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
double cube[2][2][2] = {{{1.5, 2.5}, {3.5, 4.5}}, {{-1, -2}, {-3, -4}}};
int zeros[50];
int repeats[20] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3};
int long_array[300];
char word[8] = "array";
char full[5] = {'h', 'e', 'l', 'l', 'o'};
char text[64] = "a fairly long string with trailing zero bytes";
unsigned char bytes[6] = {0, 1, 127, 128, 200, 255};
char many_a[250];
const char *names[3] = {"alpha", "beta", 0};

static int sum_vla(int rows, int cols, int m[rows][cols])
{
    int s = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            s += m[r][c];
    return s;
}

int main(void)
{
    for (int k = 0; k < 300; k++)
        long_array[k] = k % 7;
    memset(many_a, 'a', sizeof many_a - 1);
    int n = 5;
    int vla[n];
    for (int k = 0; k < n; k++)
        vla[k] = k * k;
    int m[2][3] = {{1, 2, 3}, {4, 5, 6}};
    return sum_vla(2, 3, m) + vla[4];
}
