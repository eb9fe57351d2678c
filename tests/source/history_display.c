/* Value history and auto-display while stepping through a loop. */
int squares[5];

int main(void)
{
    int sum = 0;
    for (int i = 0; i < 5; i++) {
        squares[i] = i * i;
        sum += squares[i];
    }
    return sum - 30;
}
