// A C++ class with plain members, a method, and a function taking a reference.
struct Vec {
    int x;
    int y;
    double scale;
    int dot(const Vec &o) const { return x * o.x + y * o.y; }
};

class Counter {
public:
    explicit Counter(int start) : count_(start), name_("ctr") {}
    void add(int n) { count_ += n; }
    int count() const { return count_; }

private:
    int count_;
    const char *name_;
};

static void grow(Vec &v, int by)
{
    v.x += by;
    v.y *= by;
}

int main()
{
    Vec a{1, 2, 0.5};
    Vec b{3, 4, 1.0};
    grow(a, 3);
    Counter c(10);
    c.add(a.dot(b));
    return c.count() == 0;
}
