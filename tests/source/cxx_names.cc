// Namespaces, static members, enum class, bool and access specifiers: qualified names in
// expressions, breakpoints and printed values; members by bare name inside a method.
namespace phys {
enum class Bc { Wall, Inflow, Outflow };
enum Color { Red, Green };
int count = 42;
double scale = 1.5;
struct Solver {
    static int nsolvers;
    double tol;
    int iters;
    bool converged;
    Bc bc;
    double step(double dt)
    {
        double r = tol * dt + iters;
        return r;
    }
};
int Solver::nsolvers = 3;
template <typename T> struct Box {
    T val;
    int n;
};
namespace inner {
int depth = 2;
}
}

class Access {
public:
    int pub = 1;

protected:
    double prot = 2.0;

private:
    char priv = 'x';

public:
    int get() const { return pub + priv; }
};

int main()
{
    phys::Solver s{1e-08, 10, true, phys::Bc::Inflow};
    phys::Box<double> bd{2.5, 1};
    phys::Box<int> bi{7, 2};
    phys::Color c = phys::Green;
    Access a;
    bool flag = false;
    double r = s.step(0.5);
    return r > 0 && a.get() && flag == false && c == phys::Green ? 0 : 1;
}
