// A C++ code in the style of cluster codes (field check of issue 17): templates, virtual
// classes in unique_ptr, std::function of a lambda, the standard containers, an exception.
#include <vector>
#include <map>
#include <unordered_map>
#include <string>
#include <memory>
#include <optional>
#include <variant>
#include <functional>
#include <array>
#include <tuple>
#include <complex>
#include <stdexcept>
#include <cstdio>
#include <cmath>

namespace mesh {
struct Point { double x, y, z; };

template <typename T, int N>
class Field {
public:
  explicit Field(std::string name, std::size_t n) : name_(std::move(name)), data_(n * N) {}
  T &at(std::size_t i, int c) { return data_[i * N + c]; }
  std::size_t size() const { return data_.size() / N; }
  const std::string &name() const { return name_; }
  T norm() const { T s{}; for (auto v : data_) s += v * v; return std::sqrt(s); }
private:
  std::string name_;
  std::vector<T> data_;
};

class Boundary {
public:
  virtual ~Boundary() = default;
  virtual double apply(double v) const = 0;
  int id = 0;
};
class Dirichlet : public Boundary {
public:
  explicit Dirichlet(double v) : value(v) { id = 1; }
  double apply(double) const override { return value; }
  double value;
};
class Neumann : public Boundary {
public:
  double apply(double v) const override { return v + flux; }
  double flux = 0.25;
};

struct Config {
  std::map<std::string, double> params;
  std::unordered_map<int, std::string> labels;
  std::optional<int> restart;
  std::variant<int, double, std::string> mode;
  std::array<int, 3> dims{{4, 3, 2}};
  std::tuple<int, double> pair{7, 2.5};
  std::complex<double> phase{1.0, -0.5};
};
}  // namespace mesh

using namespace mesh;

static double relax(Field<double, 3> &f, const std::vector<std::unique_ptr<Boundary>> &bcs,
                    const std::function<double(double)> &src, int iter) {
  double res = 0;
  for (std::size_t i = 0; i < f.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      double &v = f.at(i, c);
      double nv = bcs[i % bcs.size()]->apply(v) + src(v) / (iter + 1);
      res += std::fabs(nv - v);
      v = nv;
    }
  return res;
}

int solve(Config &cfg, Field<double, 3> &f) {
  std::vector<std::unique_ptr<Boundary>> bcs;
  bcs.push_back(std::make_unique<Dirichlet>(1.5));
  bcs.push_back(std::make_unique<Neumann>());
  auto shared = std::make_shared<Point>(Point{1, 2, 3});
  double scale = cfg.params["scale"];
  auto src = [scale, &cfg](double v) { return scale * v + cfg.dims[0]; };
  int it = 0;
  double res = 1e9;
  while (res > 1e-3 && it < 5) {
    res = relax(f, bcs, src, it);
    ++it;
  }
  if (shared->x > 10) throw std::runtime_error("bad point");
  return it;
}

int main() {
  Config cfg;
  cfg.params["scale"] = 0.5;
  cfg.params["tol"] = 1e-6;
  cfg.labels[1] = "inlet";
  cfg.labels[2] = "wall";
  cfg.restart = 42;
  cfg.mode = std::string("implicit");
  Field<double, 3> f("velocity", 4);
  for (std::size_t i = 0; i < f.size(); ++i) f.at(i, 0) = i;
  int n = solve(cfg, f);
  try {
    std::vector<int> v(3);
    v.at(5) = 1;
  } catch (const std::out_of_range &e) {
    std::printf("caught %s\n", e.what());
  }
  std::printf("%d %g\n", n, f.norm());
  return 0;
}
