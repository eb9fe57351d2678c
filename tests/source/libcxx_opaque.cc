// The library that defines the type the program only declares.
struct Opaque {
    int a;
    double b;
    const char *name;
};
struct Node;
struct Node {
    int v;
    Node *next;
};
extern "C" Opaque *make_opaque()
{
    static Opaque o{7, 2.5, "lib"};
    return &o;
}
extern "C" Node *make_list()
{
    static Node n2{2, nullptr};
    static Node n1{1, &n2};
    return &n1;
}
