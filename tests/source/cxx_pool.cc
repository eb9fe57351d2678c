// A C++ code with a thread pool (std::thread, mutex, condition_variable, atomic), CRTP and
// standard containers: field check of issue 17.
#include <thread>
#include <mutex>
#include <condition_variable>
#include <atomic>
#include <vector>
#include <deque>
#include <list>
#include <set>
#include <string>
#include <memory>
#include <cstdio>

template <typename Derived>
struct Solver {
  int steps = 0;
  void run(int n) { for (int i = 0; i < n; ++i) static_cast<Derived *>(this)->step(i); }
};

struct Jacobi : Solver<Jacobi> {
  std::vector<double> u{1.0, 2.0, 3.0};
  void step(int i) { u[i % 3] *= 0.5; ++steps; }
};

struct Task { int id; std::string name; double cost; };

class Pool {
public:
  explicit Pool(int n) {
    for (int i = 0; i < n; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~Pool() {
    { std::lock_guard<std::mutex> g(m_); stop_ = true; }
    cv_.notify_all();
    for (auto &t : workers_) t.join();
  }
  void submit(Task t) {
    { std::lock_guard<std::mutex> g(m_); q_.push_back(std::move(t)); }
    cv_.notify_one();
  }
  std::atomic<int> done{0};
private:
  void work(int who) {
    for (;;) {
      std::unique_lock<std::mutex> l(m_);
      cv_.wait(l, [this] { return stop_ || !q_.empty(); });
      if (q_.empty()) return;
      Task t = std::move(q_.front());
      q_.pop_front();
      l.unlock();
      process(t, who);
    }
  }
  void process(const Task &t, int who) {
    volatile double s = t.cost * who;
    (void)s;
    done.fetch_add(1);
  }
  std::vector<std::thread> workers_;
  std::deque<Task> q_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
};

int main() {
  Jacobi j;
  j.run(4);
  std::list<int> order{3, 1, 2};
  std::set<std::string> tags{"hot", "cold"};
  auto shared = std::make_shared<Task>(Task{9, "shared", 0.5});
  std::weak_ptr<Task> weak = shared;
  int finished = 0;
  {
    Pool pool(3);
    for (int i = 0; i < 6; ++i) pool.submit(Task{i, "t" + std::to_string(i), 1.5 * i});
    while (pool.done.load() < 6) std::this_thread::yield();
    finished = pool.done.load();
  }
  std::printf("%d %d %g %zu %zu\n", finished, j.steps, j.u[0], order.size(), tags.size());
  return 0;
}
