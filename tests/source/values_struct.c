/* Structs, nested structs, unions, anonymous members, bitfields, enums and flag enums. */
enum color { RED, GREEN = 5, BLUE };
enum flags { F_READ = 1, F_WRITE = 2, F_EXEC = 4 };
enum sparse { S_A = -3, S_B = 100 };

struct inner {
    short a;
    char tag[4];
};

struct outer {
    int id;
    struct inner in;
    struct inner pair[2];
    double weight;
    enum color col;
    struct outer *next;
};

union number {
    int i;
    float f;
    unsigned char bytes[4];
};

struct packed_bits {
    unsigned int low : 3;
    unsigned int mid : 5;
    signed int neg : 4;
    unsigned int flag : 1;
    _Bool on : 1;
    enum color c : 4;
};

struct with_anon {
    int kind;
    union {
        int as_int;
        float as_float;
    };
    struct {
        short x, y;
    };
};

struct outer g_outer = {7, {-2, "ab"}, {{1, "x"}, {2, "yz"}}, 2.5, BLUE, 0};
union number g_num = {.i = 0x40490fdb};
struct packed_bits g_bits = {5, 17, -3, 1, 1, GREEN};
struct with_anon g_anon = {.kind = 2, .as_int = 99, .x = 3, .y = -4};
enum flags g_flags = F_READ | F_EXEC;
enum flags g_noflags = 0;
enum flags g_badflags = F_WRITE | 16;
enum color g_unknown = (enum color)42;
enum sparse g_sparse = S_A;

int main(void)
{
    struct outer local = g_outer;
    local.next = &g_outer;
    local.in.tag[3] = 'Q';
    union number n = g_num;
    n.bytes[0] = 0;
    return local.id + n.bytes[1] + g_bits.low + g_anon.x;
}
