// Reverses the bits of every 32-bit word of an array, one block of 64 threads per 64 words:
// the file-scope __shared__ array holds the block's words between the two halves.
// Built by NVRTC (device code only: __CUDACC_RTC__) for the cubin tests and by nvcc (with the
// host program below) for the GPU check in scripts/gpu-check.sh.
#define N 64

__shared__ unsigned int sdata[N];

extern "C" __global__ void bitreverse(unsigned int *data)
{
    unsigned int *idata = data + blockIdx.x * N;
    int idx = threadIdx.x;
    sdata[idx] = idata[idx];
    __syncthreads();
    unsigned int v = sdata[idx];
    v = ((0xf0f0f0f0 & v) >> 4) | ((0x0f0f0f0f & v) << 4);
    v = ((0xcccccccc & v) >> 2) | ((0x33333333 & v) << 2);
    v = ((0xaaaaaaaa & v) >> 1) | ((0x55555555 & v) << 1);
    idata[idx] = v;
}

extern "C" __global__ void scale(float *out, const float *in, float factor, int n)
{
    float window[4];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 4; k++)
        window[k] = (i + k < n) ? in[i + k] : 0.0f;
    float sum = 0.0f;
    for (int k = 0; k < 4; k++)
        sum += window[k] * factor;
    if (i < n)
        out[i] = sum;
}

#ifndef __CUDACC_RTC__
#include <stdio.h>

int main(void)
{
    unsigned int host[2 * N];
    for (int i = 0; i < 2 * N; i++)
        host[i] = (unsigned int)i;
    unsigned int *dev = 0;
    cudaMalloc((void **)&dev, sizeof host);
    cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice);
    bitreverse<<<2, N>>>(dev);
    cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
    cudaFree(dev);
    int bad = 0;
    for (int i = 0; i < 2 * N; i++) {
        unsigned int r = 0; /* the bits of each byte reversed (the kernel's three swaps) */
        for (int b = 0; b < 32; b++)
            if ((unsigned int)i & (1u << b))
                r |= 1u << ((b & ~7) | (7 - (b & 7)));
        if (host[i] != r)
            bad++;
    }
    printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad != 0;
}
#endif
