/* Thread-local state of a library: module 2 or more in the thread's DTV. */
__thread int lib_counter = 5;
__thread long lib_total;

int bump(int by)
{
    lib_counter += by;
    lib_total += lib_counter;
    return lib_counter;
}
