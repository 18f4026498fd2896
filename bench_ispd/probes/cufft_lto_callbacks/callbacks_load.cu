// The probe's identity load callbacks alone (for the "[split]" runs).
#include <cufftXt.h>
__device__ cufftReal ld_real_identity(void* in, unsigned long long off, void*, void*) { return static_cast<float*>(in)[off]; }
__device__ cufftComplex ld_complex_identity(void* in, unsigned long long off, void*, void*) { return static_cast<cufftComplex*>(in)[off]; }
