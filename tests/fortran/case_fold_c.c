/* C globals whose names differ from Fortran's only in case (case_fold.f90). */
const double QTAB[3] = {1.5, 2.5, 3.5};
int Mixed = 7;
int lower_c = 11;
