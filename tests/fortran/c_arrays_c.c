/* C globals of the Fortran program c_arrays.f90. */
struct pair {
    int i[2];
    double x;
};
struct pair cpair = {{3, 4}, 2.5};
int cvec[3] = {7, 8, 9};
int cmat[2][3] = {{1, 2, 3}, {4, 5, 6}};
double cd[2] = {0.5, 1.5};
