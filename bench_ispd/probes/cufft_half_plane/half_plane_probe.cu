// Probe: what a split 2D DCT could cost (see bench_ispd/results/transforms2d.md). Times, in one
// process, cuFFT's 2D R2C of M x N reals against the pieces of a design that leaves cuFFT only
// the batched row C2C of the half plane u <= M/2 (M/2 + 1 rows of N complex, contiguous), and
// a plain copy of the array as the bandwidth floor of one own pass, and the batched row R2C /
// C2R with the half spectrum stored transposed (cuFFT's advanced layout, stride M).
//   nvcc -O3 -arch=sm_90 half_plane_probe.cu -o half_plane_probe -lcufft && ./half_plane_probe
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CK(x) do { auto e = (x); if (e != 0) { std::printf("error %d at %s:%d\n", (int)e, __FILE__, __LINE__); return 1; } } while (0)

__global__ void fill(float* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = float((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
}
__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i];
}

template <typename F>
float median_us(F&& f, int reps = 100) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 10; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  std::printf("| M x N | type | 2D R2C | row C2C, M/2+1 rows | row C2C, M rows | copy of M x N reals | row R2C | row R2C, output transposed | row C2R, input transposed |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int n : {1024, 2048, 4096, 8192}) {
    for (int dbl = 0; dbl < 2; ++dbl) {
      const int M = n, N = n;
      const size_t es = dbl ? 8 : 4;
      const size_t half = size_t(M / 2 + 1) * N;  // complex, half plane in u
      float *real, *spec, *copy;
      CK(cudaMalloc(&real, size_t(M) * N * es));
      CK(cudaMalloc(&copy, size_t(M) * N * es));
      CK(cudaMalloc(&spec, size_t(M) * N * 2 * es + 64));
      fill<<<1024, 256>>>(real, size_t(M) * N * (es / 4));
      fill<<<1024, 256>>>(spec, size_t(M) * N * 2 * (es / 4));
      cufftHandle p2, prow_half, prow_full, r2c_rows, r2c_t, c2r_t;
      int dims[2] = {M, N};
      CK(cufftPlanMany(&p2, 2, dims, nullptr, 1, 0, nullptr, 1, 0, dbl ? CUFFT_D2Z : CUFFT_R2C, 1));
      int len[1] = {N};
      CK(cufftPlanMany(&prow_half, 1, len, nullptr, 1, N, nullptr, 1, N, dbl ? CUFFT_Z2Z : CUFFT_C2C, M / 2 + 1));
      CK(cufftPlanMany(&prow_full, 1, len, nullptr, 1, N, nullptr, 1, N, dbl ? CUFFT_Z2Z : CUFFT_C2C, M));
      // Batched row R2C, plain and with the output transposed (frequency k of row r at k M + r),
      // and the C2R reading that transposed layout.
      int onembed[1] = {N / 2 + 1}, rn[1] = {N};
      CK(cufftPlanMany(&r2c_rows, 1, len, nullptr, 1, N, nullptr, 1, N / 2 + 1, dbl ? CUFFT_D2Z : CUFFT_R2C, M));
      CK(cufftPlanMany(&r2c_t, 1, len, rn, 1, N, onembed, M, 1, dbl ? CUFFT_D2Z : CUFFT_R2C, M));
      CK(cufftPlanMany(&c2r_t, 1, len, onembed, M, 1, rn, 1, N, dbl ? CUFFT_Z2D : CUFFT_C2R, M));
      auto exec_r2c = [&](cufftHandle p) {
        return [&, p] {
          if (dbl) cufftExecD2Z(p, (double*)real, (cufftDoubleComplex*)spec);
          else cufftExecR2C(p, real, (cufftComplex*)spec);
        };
      };
      auto exec_c2r = [&] {
        if (dbl) cufftExecZ2D(c2r_t, (cufftDoubleComplex*)spec, (double*)copy);
        else cufftExecC2R(c2r_t, (cufftComplex*)spec, copy);
      };
      auto r2c = [&] {
        if (dbl) cufftExecD2Z(p2, (double*)real, (cufftDoubleComplex*)spec);
        else cufftExecR2C(p2, real, (cufftComplex*)spec);
      };
      auto rows = [&](cufftHandle p) {
        return [&, p] {
          if (dbl) cufftExecZ2Z(p, (cufftDoubleComplex*)spec, (cufftDoubleComplex*)spec, CUFFT_FORWARD);
          else cufftExecC2C(p, (cufftComplex*)spec, (cufftComplex*)spec, CUFFT_FORWARD);
        };
      };
      const size_t n4 = size_t(M) * N * es / 16;
      auto cp = [&] { copy4<<<132 * 8, 256>>>((const float4*)real, (float4*)copy, n4); };
      const float t2 = median_us(r2c), th = median_us(rows(prow_half)), tf = median_us(rows(prow_full)), tc = median_us(cp);
      const float tr = median_us(exec_r2c(r2c_rows)), tt = median_us(exec_r2c(r2c_t)), tct = median_us(exec_c2r);
      std::printf("| %d x %d | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", M, N, dbl ? "double" : "float", t2, th,
                  tf, tc, tr, tt, tct);
      cufftDestroy(r2c_rows);
      cufftDestroy(r2c_t);
      cufftDestroy(c2r_t);
      (void)half;
      cufftDestroy(p2);
      cufftDestroy(prow_half);
      cufftDestroy(prow_full);
      cudaFree(real);
      cudaFree(spec);
      cudaFree(copy);
    }
  }
  return 0;
}
