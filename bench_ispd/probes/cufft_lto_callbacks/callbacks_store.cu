// The probe's store callbacks alone (for the "[split]" runs).
#include <cufftXt.h>
struct Params { float* out; const float2* tw; int n; };
__device__ void st_complex_identity(void* out, unsigned long long off, cufftComplex v, void*, void*) { static_cast<cufftComplex*>(out)[off] = v; }
__device__ void st_real_identity(void* out, unsigned long long off, cufftReal v, void*, void*) { static_cast<float*>(out)[off] = v; }
__device__ void st_complex_dct(void*, unsigned long long off, cufftComplex v, void* info, void*) {
  const Params& p = *static_cast<const Params*>(info);
  const unsigned nh = p.n / 2 + 1; const unsigned o = (unsigned)off; const unsigned r = o / nh; const int k = o - r * nh;
  float2 t = p.tw[k];
  float* row = p.out + (unsigned long long)r * p.n;
  row[k] = v.x * t.x + v.y * t.y;
  if (k > 0 && k < p.n - k) row[p.n - k] = v.x * t.y - v.y * t.x;
}
