/* Output formats of print: /x /d /u /o /t /c /f /a /s /z. */
int answer = 42;
int negative = -1;
unsigned char byte = 0xa5;
double ratio = 2.75;
float small = -0.5f;
char letter = 'q';
int values[4] = {1, -2, 300, 65};
struct pt { int x; char c; double d; } point = {10, 'P', 1.5};
char *where = (char *)&answer;
int (*fnp)(void);

int main(void)
{
    fnp = main;
    return answer - 42;
}
