// gdb's RTTI look-up when it follows a pointer or reference to a polymorphic class: the
// dynamic class (`Hidden`) is defined in a unit without debug information
// (cxx_rtti_warning_nodebug.cc), so gdb warns that it has no type for it.
struct Shape {
    virtual ~Shape() {}
    virtual int area() const { return 0; }
    int id;
};
Shape *make_hidden();
int main()
{
    Shape *s = make_hidden();
    Shape &r = *s;
    return s->area() + r.id == 0;
}
