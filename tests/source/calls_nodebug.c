/* A function without debug information: calling it needs a cast to its return type. */
int nd_twice(int x) { return 2 * x; }
