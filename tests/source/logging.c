/* set logging: output copied or redirected to a file. */
int counter = 7;

int main(void)
{
    return counter == 0;
}
