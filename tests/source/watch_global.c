/* Watchpoints on globals and struct members: write, read and access watchpoints. */
struct stats {
    int hits;
    int misses;
    double ratio;
};

int level;
struct stats st;
int reads_from;

static void record(int hit)
{
    if (hit)
        st.hits++;
    else
        st.misses++;
    st.ratio = (double)st.hits / (st.hits + st.misses);
}

int main(void)
{
    int copy = 0;
    level = 1;
    record(1);
    level = 5;
    record(0);
    copy = reads_from;
    reads_from = copy + 2;
    level = 5;
    level += 10;
    copy += reads_from;
    return copy + level == 0;
}
