// Displays in a member function: a member of *this by its bare name, a static local.
struct Counter {
  int count_ = 0;
  int bump(int by) {
    count_ += by;
    return count_;
  }
};
static int total(int n) {
  static int seen;
  seen += n;
  return seen;
}
int main() {
  Counter c;
  c.bump(2);
  c.bump(3);
  total(1);
  return total(2) + c.count_;
}
