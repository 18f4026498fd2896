#pragma once
// EFIELD_HD marks the math shared by the CPU backend and the CUDA kernels: one definition of
// each formula, compiled by g++ for the host loops and by nvcc for the kernels.
#if defined(__CUDACC__)
#define EFIELD_HD __host__ __device__ __forceinline__
#else
#define EFIELD_HD inline
#endif
