/* delete with arguments that are not breakpoint numbers. */
int count;

void tick(void)
{
    count++;
}

int main(void)
{
    tick();
    tick();
    return count;
}
