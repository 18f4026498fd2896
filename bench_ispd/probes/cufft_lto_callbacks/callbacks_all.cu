// LTO-IR callbacks of the probe (lto_callback_probe.cu), all in one fatbin: identity loads and
// stores, a load through callerInfo, and a DCT-style store writing two outputs per element.
#include <cufftXt.h>
struct Params { float* out; const float2* tw; int n; };
__device__ cufftReal ld_real_identity(void* in, unsigned long long off, void*, void*) { return static_cast<float*>(in)[off]; }
__device__ cufftReal ld_real_info(void*, unsigned long long off, void* info, void*) { return static_cast<const float*>(info)[off]; }
__device__ void st_complex_identity(void* out, unsigned long long off, cufftComplex v, void*, void*) { static_cast<cufftComplex*>(out)[off] = v; }
__device__ cufftComplex ld_complex_identity(void* in, unsigned long long off, void*, void*) { return static_cast<cufftComplex*>(in)[off]; }
__device__ void st_real_identity(void* out, unsigned long long off, cufftReal v, void*, void*) { static_cast<float*>(out)[off] = v; }
// two outputs per element, twiddle table from a params struct (like the DCT postprocess)
__device__ void st_complex_dct(void*, unsigned long long off, cufftComplex v, void* info, void*) {
  const Params& p = *static_cast<const Params*>(info);
  const unsigned nh = p.n / 2 + 1; const unsigned o = (unsigned)off; const unsigned r = o / nh; const int k = o - r * nh;
  float2 t = p.tw[k];
  float* row = p.out + (unsigned long long)r * p.n;
  row[k] = v.x * t.x + v.y * t.y;
  if (k > 0 && k < p.n - k) row[p.n - k] = v.x * t.y - v.y * t.x;
}
