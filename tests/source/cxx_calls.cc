// Member functions, virtual functions, operators and library methods called from the
// debugger.
#include <string>
#include <vector>
#include <map>
#include <cstdio>

namespace geom {
struct Vec2 {
  double x, y;
  double dot(const Vec2 &o) const { return x * o.x + y * o.y; }
  Vec2 scaled(double k) const { return Vec2{x * k, y * k}; }
  Vec2 operator+(const Vec2 &o) const { return Vec2{x + o.x, y + o.y}; }
  bool operator==(const Vec2 &o) const { return x == o.x && y == o.y; }
  static int dims() { return 2; }
  Vec2 rotated() const;
  static Vec2 unit(int axis);
};

Vec2 Vec2::rotated() const { return Vec2{-y, x}; }
Vec2 Vec2::unit(int axis) { return axis == 0 ? Vec2{1, 0} : Vec2{0, 1}; }
Vec2 operator-(const Vec2 &a, const Vec2 &b) { return Vec2{a.x - b.x, a.y - b.y}; }
double operator*(const Vec2 &a, double k) { return (a.x + a.y) * k; }

struct Shape {
  int id;
  explicit Shape(int i) : id(i) {}
  virtual ~Shape() {}
  virtual double area() const { return 0; }
  int ident() const { return id; }
};

struct Square : Shape {
  double side;
  Square(int i, double s) : Shape(i), side(s) {}
  double area() const override { return side * side; }
};

double total(const Shape &a, const Shape &b) { return a.area() + b.area(); }
int twice(int x) { return 2 * x; }
double twice(double x) { return 2 * x; }
}

struct Counter {
  int n = 0;
  int bump(int by) { n += by; return n; }
};

int main()
{
  geom::Vec2 a{1, 2}, b{3, 4};
  geom::Square sq(7, 3.0);
  geom::Shape &sh = sq;
  Counter c;
  std::string s = "hello";
  std::vector<int> v{1, 2, 3};
  std::map<std::string, int> m{{"one", 1}};
  c.bump(1);
  geom::Vec2 d = a - b;
  std::printf("%g %g\n", d.x, (a * 2.0));
  std::printf("%g %g %d %zu %zu\n", a.dot(b), sq.area(), c.n, s.size(), v.size());
  return 0;
}
