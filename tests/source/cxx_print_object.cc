// set print object on: pointers, references and objects of polymorphic classes shown with
// their dynamic type (through the vtable's symbol and offset to top, across multiple
// inheritance); p->member of the dynamic class; whatis/ptype's real type; info vtbl.
struct Shape {
    virtual ~Shape() {}
    virtual double area() const { return 0; }
    int id = 1;
};
struct Circle : Shape {
    double r = 2.0;
    double area() const override { return 3 * r * r; }
    virtual void grow() { r += 1; }
};
struct Other {
    virtual void f() {}
    int o = 9;
};
struct Multi : Other, Circle {
    int m = 5;
    void grow() override { m++; }
};
static Circle gc;
static Multi gm;
int main()
{
    Shape *s = &gc;
    Shape *sm = &gm;
    Circle *cm = &gm;
    Shape &ref = gc;
    Shape plain;
    Shape *sp = &plain;
    return s->area() + sm->area() + ref.area() + sp->area() > 0 ? 0 : 1;
}
