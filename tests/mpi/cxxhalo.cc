// A C++ halo exchange with the standard library; rank 2 posts its receive with the wrong tag
// on step 3, so it and its neighbour hang.
#include <mpi.h>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

class Field {
  public:
    Field(int n, int rank) : u_(n + 2, double(rank)), rank_(rank) {}
    double *left() { return &u_[1]; }
    double *right() { return &u_[u_.size() - 2]; }
    double *ghost_left() { return &u_[0]; }
    double *ghost_right() { return &u_[u_.size() - 1]; }
    void relax() {
        std::vector<double> v(u_);
        for (size_t i = 1; i + 1 < u_.size(); i++)
            u_[i] = 0.5 * v[i] + 0.25 * (v[i - 1] + v[i + 1]);
    }
    double norm() const {
        double s = 0;
        for (double x : u_) s += x * x;
        return std::sqrt(s);
    }
  private:
    std::vector<double> u_;
    int rank_;
};

static void exchange(Field &f, int rank, int size, int step, std::map<std::string, int> &stats) {
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int tag = (rank == 2 && step == 3) ? 99 : step;
    MPI_Sendrecv(f.right(), 1, MPI_DOUBLE, right, step, f.ghost_left(), 1, MPI_DOUBLE, left, tag,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(f.left(), 1, MPI_DOUBLE, left, step, f.ghost_right(), 1, MPI_DOUBLE, right, step,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    stats["exchanges"]++;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Field f(64, rank);
    std::map<std::string, int> stats;
    for (int step = 0; step < 10; step++) {
        exchange(f, rank, size, step, stats);
        f.relax();
        double n = f.norm(), total = 0;
        MPI_Allreduce(&n, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) std::printf("step %d norm %g\n", step, total);
    }
    MPI_Finalize();
    return 0;
}
