struct point { int x, y; };
int add(struct point p, int k);
char buf[16];
void _start(void) {
    struct point p = {1, 2};
    int arr[3] = {1, 2, 3};
    for (int i = 0; i < 3; i++) arr[i] = add(p, arr[i]);
    for (;;) __asm__ volatile("");
}
