/* Every scalar C type, globals and locals. */
#include <stdint.h>
#include <complex.h>

char c = 'A';
signed char sc = -5;
unsigned char uc = 250;
short s = -1234;
unsigned short us = 65000;
int i = -123456;
unsigned int ui = 4000000000u;
long l = -1234567890123L;
unsigned long ul = 18000000000000000000UL;
long long ll = -9000000000000000000LL;
unsigned long long ull = 0xffffffffffffffffULL;
int8_t i8 = -128;
uint16_t u16 = 0xbeef;
int32_t i32 = 0x7fffffff;
uint64_t u64 = 0x123456789abcdef0ULL;
_Bool yes = 1, no = 0;
float f = 3.25f;
double d = -0.1;
double big = 1e300;
double tiny = 5e-324;
long double ld = 1.0L / 3;
float complex fc = 1.5f + 2.0f * I;
double complex dc = -1.0 - 0.5 * I;
char newline = '\n', zero = 0, high = (char)0xe9;
__int128 i128 = -1;
unsigned __int128 u128 = ((unsigned __int128)1 << 100) + 7;

int main(void)
{
    short ls = 300;
    unsigned char luc = 'z';
    double nan = 0.0 / 0.0, inf = 1.0 / 0.0;
    float neg_zero = -0.0f;
    return ls + luc + (nan == inf) + (neg_zero < 0);
}
