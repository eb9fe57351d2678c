/* The second library, mapped where the first one was. */
int beta_value = 22;

int beta_inner(int x)
{
    return x * beta_value;
}

int beta(int x)
{
    int r = beta_inner(x);
    return r + 1;
}
