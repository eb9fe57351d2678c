/* set print sevenbit-strings: gdb 13 in a UTF-8 locale prints characters, strings and
   bytes the same with it on (it only escapes MI and a few other languages' output). */
unsigned char hi[4] = { 0xe9, 0x41, 0xff, 0 };
char utf[8] = "h\303\251llo";
signed char sc = -23;
unsigned char uc = 200;
char c = 'A';
const char *msg = "caf\303\251 \351t\351";
char rep[20] = "\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251";

int main(void)
{
    return c + uc;
}
