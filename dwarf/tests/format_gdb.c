/* Globals of every kind for dwarf/tests/format_gdb.rs: gdb prints them straight from the file. */
#include <complex.h>
typedef unsigned long size_t2;
typedef size_t2 size_t3;
struct point { int x; int y; };
struct item { int kind; struct item *next; };
struct nested { struct point p; struct item *next; };
union u { int i; float f; char c[4]; };
struct anon { int a; struct { int b; int c; }; };
struct bits { unsigned int flag : 1; unsigned int mode : 3; int sval : 4; int after; };
struct empty {};
struct witharr { int n; int a[3]; char name[8]; };
enum color { RED, GREEN, BLUE };
enum flags { FA = 1, FB = 2, FC = 4 };
enum e2 { A0, A1, A2, A3 };
enum e3 { N1 = -1, N2 = 5 };
enum e4 { D1 = 1, D2 = 1, D4 = 4 };
enum e5 { M3 = 3, M4 = 4 };
int counter = 7;
signed char g_sc = -5; unsigned char g_uc = 200; short g_s = -300; unsigned short g_us = 60000;
int g_i = -42; unsigned int g_ui = 4000000000u; long g_l = -1234567890123L;
unsigned long g_ul = 18446744073709551615UL; long long g_ll = -9; unsigned long long g_ull = 9;
char g_cA = 'A', g_cm1 = -1, g_c0 = 0, g_cnl = '\n', g_ctab = '\t', g_cbs = '\\', g_cq = '\'',
     g_c1 = 1, g_c127 = 127, g_cdq = '"', g_cesc = 27, g_cbell = 7;
_Bool g_bt = 1, g_bf = 0;
__int128 g_i128 = -((__int128)1 << 100);
unsigned __int128 g_u128 = ((unsigned __int128)1 << 100) + 5;
float g_f = 3.14f, g_f1 = 1e10f, g_f2 = 16777216.0f, g_f3 = 0.3f, g_f4 = 1e-5f;
float g_fnan = -__builtin_nanf("");
double g_d = 3.14, g_d01 = 0.1, g_d1 = 1.0, g_dm25 = -2.5, g_dbig = 1e100, g_dinf = 1.0 / 0.0,
       g_dninf = -1.0 / 0.0, g_dsmall = 1e-5, g_d123 = 123456789.0, g_d1e16 = 1e16,
       g_d1e17 = 1e17, g_negzero = -0.0, g_dnorm = 5e-324, g_dmax = 1.7976931348623157e308,
       g_d6 = 1e-4, g_d7 = 123456789012345678.0, g_d4 = 1234567.125;
double g_nan1 = __builtin_nan(""), g_nan2 = -__builtin_nan("1");
long double g_ld = 3.14L, g_ld1 = 1.0L, g_ld2 = 0.1L, g_ld3 = 1e100L, g_ld4 = -3.0L, g_ld5 = 1e4000L;
double _Complex g_cd = 1.0 + 2.0 * I;
float _Complex g_cf = 1.5f - 2.0f * I;
int *g_pi = &counter;
void *g_pv = 0;
const char *g_str = "hello";
char *g_esc = "a\tb\"c\\\n\001\377'";
char *g_empty_str = "";
char *g_u8p = "\xe2\x82\xac!";
char *g_badp = (char *)0x10;
unsigned char *g_ucp = (unsigned char *)"xy";
int square(int x) { return x * x; }
int (*g_fp)(int) = square;
void vf(int a, char *b) {}
void (*g_vfp)(int, char *) = vf;
int vararg(const char *fmt, ...) { return 0; }
int (*g_vap)(const char *, ...) = vararg;
struct point g_pt = {1, 2};
struct nested g_nest = {{1, 2}, 0};
struct item g_item2 = {2, 0};
struct item g_item1 = {1, &g_item2};
union u g_u = {.i = 0x41424344};
struct anon g_anon = {1, {2, 3}};
struct bits g_bits = {1, 5, -3, 9};
struct empty g_empty;
struct witharr g_wa = {3, {1, 2, 3}, "ab"};
int g_arr[3] = {1, 2, 3};
int g_zeros[16];
int g_rep[17] = {1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5};
int g_r10[12] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
int g_r11[13] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
int g_big[300];
int g_seq[300] = {
#define T(n) n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7, n + 8, n + 9
    T(1), T(11), T(21), T(31), T(41), T(51), T(61), T(71), T(81), T(91),
    T(101), T(111), T(121), T(131), T(141), T(151), T(161), T(171), T(181), T(191),
    T(201), T(211), T(221), T(231), T(241), T(251), T(261), T(271), T(281), T(291)};
int g_2d[2][2] = {{1, 2}, {3, 4}};
int g_34[3][4];
char g_abc[4] = "abc";
char g_abc00[6] = "abc";
char g_ab32[32] = "ab";
char g_escarr[8] = "a\n\"b\\";
char g_full[3] = {'x', 'y', 'z'};
char g_mix[40] = "ab\0\0\0\0\0\0\0\0\0\0\0\0cd";
char g_rep3[30] = "baaaaaaaaaaaaaaaaaaaaaaaaaaaac";
char g_rep5[30] = "baaaaaaaaaac";
char g_x300[300] = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
char g_long[301] = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmn";
const char *g_plong = g_long;
char g_u8[8] = "h\xc3\xa9llo";
char g_u8bad[4] = "\xc3x";
char g_ctl[4] = {'\a', '\e', 127, 'x'};
unsigned char g_bytes[5] = {1, 2, 200, 0, 65};
_Bool g_bools[3] = {1, 0, 1};
char *g_strs[3] = {"hi", 0, "yo"};
int *g_ptrs[2] = {&counter, 0};
struct s { const char *name; int (*fp)(int); int *p; double d; float f; char c; unsigned char uc; _Bool b; };
struct s g_st = {"nm", square, &counter, 2.5, 1.5f, 'z', 255, 1};
struct point g_ptarr[12];
double g_darr[3] = {1.5, -0.0, 1e300};
float g_farr[3] = {0.1f, 100.0f, 1e-10f};
long double g_ldarr[2] = {1.0L, -2.5L};
enum color g_col = GREEN, g_colbad = (enum color)4;
enum flags g_fl = FA | FB, g_flu = FA | 8, g_fl0 = 0;
enum e2 g_e2 = 7, g_e2b = A3;
enum e3 g_e3 = 4, g_e3b = N1;
enum e4 g_e4 = 5;
enum e5 g_e5 = 7;
size_t2 g_sz = 5;
size_t3 g_sz3 = 6;
const char *g_ccp;
char *const g_cpc = 0;
const volatile int g_cvi = 3;
int *volatile g_pvol;
int *restrict g_prestr;
const int *const g_cpci;
int (*g_pa)[4] = g_34;
char (*(*g_weird)(void))[3];
int (*g_fparr[2])(int);
struct { int q; } g_unnamed = {4};
typedef struct { int a; } anon_t;
anon_t g_anon_t = {5};
anon_t *g_panon_t = &g_anon_t;
typedef struct point pt_t;
pt_t *g_pptt;
struct point *g_ppt = &g_pt;
union { int a; struct { short lo, hi; }; } g_un = {.a = 0x10002};
struct withbits { char c; unsigned long long big : 40; unsigned short s : 5; signed char sc : 3; _Bool bb : 1; }
    g_wb = {'q', 0xffffffffffULL, 31, -2, 1};
double g_dmany[71] = {987817.0, 3.948234964231735e-272, 642548.5839826167, -268622.1661748289, 819408.1262862044, 3.7495658441984876e+122, 7.2, 102094.50758277159, 653704.249344076, 894899.4014149748, 154205.89723499725, 5.1, 113329.79587418516, 2.8960928633167627e-174, 141827.37929346878, 1.0305571244359135e+263, 3.7239754272573124e+239, 128736.58626677329, 4.964144951134918e+223, 265.3333333333333, 85.71428571428571, -371344.0, 7.943794815224911e-72, 148847.42051734193, 299.0, 0.2880859375, -763868.4434900758, 56.333333333333336, 9.332702121806375e+110, 924038.1668242195, 529141.7324256261, -286712.0, 246483.0, 84.85714285714286, 679935.5610250828, -5744.0, -878661.1448055606, 357127.0, 41.714285714285715, -952683.0, 36.4, -12614.01088603714, 7.682329884725207e-189, 3.9789767854623274e+187, -667267.4350561589, 187.66666666666666, 8.192798378357414e+242, 481421.0, 52.57142857142857, 1.5092090579110893e-141, 2.3195686681953576e-83, -30074.539317286806, 2.6274663e-317, 4.189465011253279e+57, 998791.0, 6.904936571359779e+206, -86712.55559425056, 58.285714285714285, 15.285714285714286, 6.4, 0.5, 0.25, 1e-300, 2.2250738585072014e-308, 9007199254740993.0, 123456.5, 0.000123, 100000.0, 1e21, 1e22, 5e-5};
float g_fmany[46] = {-8653.047683139503f, -5824.736291076711f, -6753.936244558052f, -3198.926955353132f, -8948.487922194661f, -9995.334361972868f, -6974.701354411442f, -7970.71263954807f, -2727.80155930858f, -9489.982266677087f, 7486.647547476394f, 2281.3797557695743f, -7028.990293382171f, -4954.844868858455f, -3052.209078925969f, -2716.7312094343506f, -7543.155384756102f, 6978.7385296922985f, 9862.05443409428f, -680.2108168013256f, -323.3068716746111f, -8282.306768876688f, -7956.247665036631f, -3147.283235139964f, -4704.862165656398f, 6577.107562431211f, -6771.22778947137f, -9538.085579095037f, 9019.711457494042f, 565.1479008424958f, -7067.9492220181855f, 863.4485176422877f, -9459.15017155663f, 562.1888187661298f, 9570.024854379455f, 7266.500605793379f, 3923.935718156037f, -4777.696055412761f, -2666.004164776423f, -6659.159309313274f, 1e-40f, 3.4028235e38f, 1.17549435e-38f, 0.1f, 1e9f, 123456789.0f};
long double g_ldmany[34] = {987817.0L, 3.948234964231735e-272L, 642548.5839826167L, -268622.1661748289L, 819408.1262862044L, 3.7495658441984876e+122L, 7.2L, 102094.50758277159L, 653704.249344076L, 894899.4014149748L, 154205.89723499725L, 5.1L, 113329.79587418516L, 2.8960928633167627e-174L, 141827.37929346878L, 1.0305571244359135e+263L, 3.7239754272573124e+239L, 128736.58626677329L, 4.964144951134918e+223L, 265.3333333333333L, 85.71428571428571L, -371344.0L, 7.943794815224911e-72L, 148847.42051734193L, 299.0L, 0.2880859375L, -763868.4434900758L, 56.333333333333336L, 9.332702121806375e+110L, 924038.1668242195L, 1e-4900L, 1.18973149535723176502e+4932L, 0.3L, 2.5e-10L};
_Float16 g_h = 1.5, g_h2 = 0.1;
__float128 g_q = 3.14Q, g_q2 = 1e-100Q;
typedef char *str_t;
str_t g_ts = "hey";
typedef char mychar;
mychar *g_mcp = "yo";
struct holder { enum color col : 2; enum flags fl; struct point pts[2]; union u un; void (*cb)(int, char *); };
struct holder g_holder = {BLUE, FA | FC, {{1, 2}, {3, 4}}, {.i = 65}, vf};
struct point make_point(int x, int y) { struct point p = {x, y}; return p; }
int main(void) { return 0; }
