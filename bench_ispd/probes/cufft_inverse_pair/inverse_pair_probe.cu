// Probe: the two real fields Ex, Ey from one evaluate, as a batched 2D C2R (two M x N real
// outputs) or as one 2D C2C whose complex output holds Ex + i Ey (interleaved pairs), the C2C and
// the forward R2C also in place (the R2C's rows padded to 2 (n/2 + 1) reals). Standalone:
//   nvcc -O3 -arch=sm_90 -std=c++17 inverse_pair_probe.cu -lcufft -o probe && ./probe
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
#define FFT(x) do { cufftResult r = (x); if (r != CUFFT_SUCCESS) { std::printf("%s: %d\n", #x, int(r)); std::exit(1); } } while (0)

template <typename F>
float median_ms(F f, cudaStream_t s) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 10; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < 100; ++i) {
    CHECK(cudaEventRecord(a, s));
    f();
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  for (int n : {512, 1024, 2048, 4096}) {
    const size_t bins = size_t(n) * n, half = size_t(n) * (n / 2 + 1);
    float* in;
    float* out;
    CHECK(cudaMalloc(&in, 2 * bins * sizeof(float) * 2));
    CHECK(cudaMalloc(&out, 2 * bins * sizeof(float) * 2));
    std::vector<float> h(4 * bins);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1, 1);
    for (float& v : h) v = u(rng);
    CHECK(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    cufftHandle r2c, c2r2, c2c;
    FFT(cufftPlan2d(&r2c, n, n, CUFFT_R2C));
    int dims[2] = {n, n};
    FFT(cufftPlanMany(&c2r2, 2, dims, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2R, 2));
    FFT(cufftPlan2d(&c2c, n, n, CUFFT_C2C));
    for (cufftHandle p : {r2c, c2r2, c2c}) FFT(cufftSetStream(p, s));
    const float t_r2c = median_ms([&] { FFT(cufftExecR2C(r2c, in, reinterpret_cast<cufftComplex*>(out))); }, s);
    CHECK(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    const float t_c2r2 = median_ms([&] { FFT(cufftExecC2R(c2r2, reinterpret_cast<cufftComplex*>(in), out)); }, s);
    CHECK(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    const float t_c2c = median_ms([&] {
      FFT(cufftExecC2C(c2c, reinterpret_cast<cufftComplex*>(in), reinterpret_cast<cufftComplex*>(out), CUFFT_INVERSE));
    }, s);
    CHECK(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    const float t_c2c_inplace = median_ms([&] {
      FFT(cufftExecC2C(c2c, reinterpret_cast<cufftComplex*>(in), reinterpret_cast<cufftComplex*>(in), CUFFT_INVERSE));
    }, s);
    // In-place R2C: rows padded to 2 (n/2 + 1) reals.
    cufftHandle r2c_in;
    int embed_in[2] = {n, 2 * (n / 2 + 1)}, embed_out[2] = {n, n / 2 + 1};
    FFT(cufftPlanMany(&r2c_in, 2, dims, embed_in, 1, embed_in[0] * embed_in[1], embed_out, 1, embed_out[0] * embed_out[1], CUFFT_R2C, 1));
    FFT(cufftSetStream(r2c_in, s));
    CHECK(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    const float t_r2c_inplace = median_ms([&] { FFT(cufftExecR2C(r2c_in, in, reinterpret_cast<cufftComplex*>(in))); }, s);
    cufftDestroy(r2c_in);
    std::printf("%5d^2  R2C %.4f ms (in place %.4f)   batched 2 x C2R %.4f ms   one C2C %.4f ms (in place %.4f)   "
                "(C2C / 2 C2R = %.3f; half %zu)\n",
                n, t_r2c, t_r2c_inplace, t_c2r2, t_c2c, t_c2c_inplace, t_c2c / t_c2r2, half);
    cufftDestroy(r2c);
    cufftDestroy(c2r2);
    cufftDestroy(c2c);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
  }
  return 0;
}
