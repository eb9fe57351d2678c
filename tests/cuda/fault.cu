// A kernel that faults: thread 37 of block 1 stores through a null pointer, the others write
// their index. For the GPU check (scripts/gpu-check.sh): the device exception is reported with
// the faulting thread in focus, as cuda-gdb reports it.
#include <stdio.h>

extern "C" __global__ void fault(int *out)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = out;
    if (blockIdx.x == 1 && threadIdx.x == 37)
        p = 0;
    p[idx] = idx;
}

int main(void)
{
    int *dev = 0;
    cudaMalloc((void **)&dev, 128 * sizeof(int));
    fault<<<2, 64>>>(dev);
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorName(e));
    return 0;
}
