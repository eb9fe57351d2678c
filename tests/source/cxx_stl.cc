// The standard library as gdb's libstdc++ printers show it: std::vector (of doubles, of
// structs, nested, empty, longer than `print elements`) and std::string, by value and by
// reference; the vector xmethods (v[i], size, empty, front, back, at).
#include <string>
#include <vector>

struct Pt {
    int x;
    double y;
};

struct Named {
    std::string name;
    std::vector<double> w;
};

static double use(const std::vector<double> &b, std::vector<int> e, const std::string &s,
                  std::vector<Pt> &pts, std::string t)
{
    double r = b[5] + e.size() + s.size() + pts[1].y + t.size();
    return r;
}

int main()
{
    std::vector<double> v{0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5};
    std::vector<int> empty;
    std::vector<int> big(250, 7);
    std::vector<std::vector<int>> nested{{1, 2}, {3}};
    std::string s = "hello";
    std::string longs(300, 'a');
    std::vector<Pt> pts{{1, 0.5}, {2, 1.5}};
    Named nm{"grid", {1.0, 2.0}};
    return use(v, empty, s, pts, "tmp") > 0 ? 0 : 1;
}
