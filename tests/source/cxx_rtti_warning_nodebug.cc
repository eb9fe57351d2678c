// The derived class, without debug information (built -g0).
struct Shape {
    virtual ~Shape() {}
    virtual int area() const { return 0; }
    int id;
};
struct Hidden : Shape {
    int area() const override { return w * 2; }
    int w = 21;
};
Shape *make_hidden()
{
    Shape *s = new Hidden;
    s->id = 3;
    return s;
}
