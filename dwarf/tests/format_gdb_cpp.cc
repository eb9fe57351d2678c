// C++ globals for dwarf/tests/format_cpp.rs.
struct B { int b; };
class C : public B { public: int x; double y; };
struct S { int a; int &r; };
int gi = 5;
int &gr = gi;
int &&grr = 7;
C gc;
S gs = {1, gi};
const int &gcr = gi;
int main() { return 0; }
