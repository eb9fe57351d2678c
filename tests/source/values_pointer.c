/* Pointers, const/volatile, typedefs, function pointers, strings. */
typedef int count_t;
typedef struct node {
    count_t value;
    struct node *next;
} node_t;
typedef int (*binop_t)(int, int);
typedef const char *cstr;

static int plus(int a, int b) { return a + b; }
static int minus(int a, int b) { return a - b; }

node_t third = {3, 0};
node_t second = {2, &third};
node_t first = {1, &second};
const int limit = 10;
volatile int ticks = 5;
const volatile unsigned short port = 0x3f8;
int *null_ptr;
void *opaque = &first;
const char *message = "pointers are fine";
cstr alias_message = "typedef'd";
char *empty = "";
const char *escapes = "tab\there \"quoted\"\n";
binop_t ops[2] = {plus, minus};
int (*op)(int, int) = minus;
count_t counts[3] = {4, 5, 6};
int *into_counts = &counts[1];
int **double_ptr = &into_counts;
void (*no_func)(void);

int main(void)
{
    node_t *walk = &first;
    const node_t *cwalk = &second;
    int total = 0;
    while (walk) {
        total += walk->value;
        walk = walk->next;
    }
    return total + ops[0](1, 2) + cwalk->value + limit + ticks + port + *into_counts;
}
