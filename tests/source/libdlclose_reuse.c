/* The first library: closed before the second is loaded at the same address. */
int alpha_value = 11;

int alpha(int x)
{
    return x + alpha_value;
}
