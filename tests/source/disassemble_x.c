/* disassemble /s and the x command on source-level objects. */
int table[6] = {10, -20, 30, -40, 50, -60};
const char *greeting = "hello, x";
char buffer[16] = "raw bytes";
double weights[2] = {0.5, -1.25};

static int scaled(int i, int by)
{
    int v = table[i];
    return v * by;
}

int main(void)
{
    int total = 0;
    for (int i = 0; i < 3; i++)
        total += scaled(i, 2);
    return total == 0;
}
