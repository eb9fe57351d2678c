/* Assignments from the debugger change what the program does next. */
#include <stdio.h>

struct account {
    char owner[8];
    int balance;
    double rate;
};

int limit = 3;
struct account acct = {"ann", 100, 0.5};

static int charge(struct account *a, int amount)
{
    if (amount > a->balance)
        return -1;
    a->balance -= amount;
    return a->balance;
}

int main(void)
{
    int done = 0;
    int amount = 40;
    for (int i = 0; i < limit; i++) {
        if (charge(&acct, amount) < 0)
            break;
        done++;
    }
    printf("done=%d balance=%d rate=%.2f owner=%s\n", done, acct.balance, acct.rate, acct.owner);
    return done;
}
