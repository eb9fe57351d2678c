// More of the standard library as gdb's libstdc++ printers show it: std::vector<bool>,
// std::variant, std::atomic, std::multimap/multiset, std::weak_ptr; std::array, std::pair and
// std::complex (no printers: the class as it is); children of printers with `set print
// pretty`.
#include <array>
#include <atomic>
#include <complex>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

struct Pt {
    int x;
    double y;
};

struct NoDelete {
    void operator()(int *) const {}
};

static int counter = 42;
static Pt origin{0, 0.5};

static int use(const std::variant<int, double, std::string> &v, std::vector<bool> &bits,
               std::atomic<int> &a, const std::multimap<int, std::string> &mm)
{
    return (int)v.index() + (int)bits.size() + a + (int)mm.size();
}

int main()
{
    std::vector<bool> vb{true, false, true, true, false, false, false, false, true, true};
    std::vector<bool> vbe;
    std::vector<bool> vbig(300, true);
    std::variant<int, double, std::string> vi = 3;
    std::variant<int, double, std::string> vd = 2.5;
    std::variant<int, double, std::string> vs = std::string("abc");
    std::variant<std::monostate, int> vm;
    std::variant<int, std::vector<int>> vv = std::vector<int>{7, 8};
    std::variant<Pt, std::list<std::string>> vp = Pt{1, 2.5};
    std::complex<double> c(1.5, -2);
    std::complex<float> cf(0.5f, 3);
    std::atomic<int> ai(7);
    std::atomic<bool> ab(true);
    std::atomic<long> al(-5);
    std::atomic<Pt *> ap(&origin);
    std::multimap<int, std::string> mm{{1, "a"}, {1, "b"}, {2, "c"}};
    std::multiset<int> ms{3, 1, 3, 2};
    std::shared_ptr<int> sp(&counter, NoDelete());
    std::weak_ptr<int> wp = sp;
    std::weak_ptr<int> wpe;
    std::array<int, 4> arr{1, 2, 3, 4};
    std::array<Pt, 2> arp{{{1, 0.5}, {2, 1.5}}};
    std::array<int, 0> arr0{};
    std::pair<int, double> pr{1, 2.5};
    std::pair<std::string, Pt> pr2{"k", {3, 4.5}};
    std::vector<std::pair<int, int>> vpr{{1, 2}, {3, 4}};
    std::map<int, Pt> mp{{1, {2, 3.5}}};
    std::set<int> st{1, 2};
    std::optional<int> o = 4;
    std::tuple<int, double> tp{1, 2.5};
    std::vector<Pt> pts{{1, 0.5}};
    int r = use(vs, vb, ai, mm);
    return r + (int)c.real() + ms.size() + arr[0] + pr.first + *o > 0 ? 0 : 1;
}
