// Probe: how fast can 4M stretched cells be rasterized into a 2048^2 fixed-point map with
// different atomic widths? Standalone (not part of the build):
//   nvcc -O3 -arch=sm_90 -std=c++17 rasterize_atomics_probe.cu -o probe && ./probe
// Each cell covers 2-3 bins per axis (cells stretched to >= sqrt(2) bins, as in docs/math.md 2.2).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

struct Cells { const float *x, *y, *w, *h; int n; int M, N; };

__device__ __forceinline__ float overlap(float a0, float a1, int k) {
  return fmaxf(0.f, fminf(a1, float(k + 1)) - fmaxf(a0, float(k)));
}

enum Mode { U64 = 0, U32 = 1, PACKED = 2, F32 = 3, NONE = 4, U32_RED = 5, PACKED_TWO_MAPS = 6, F32X2 = 7, F32X4 = 8 };

template <int mode>
__global__ void rasterize(Cells c, void* map, unsigned long long* total) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long sum = 0;
  if (i < c.n) {
    const float x0 = c.x[i], x1 = x0 + c.w[i], y0 = c.y[i], y1 = y0 + c.h[i];
    const int m0 = int(x0), n0 = int(y0);
    float ox[3], oy[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) { ox[k] = overlap(x0, x1, m0 + k); oy[k] = overlap(y0, y1, n0 + k); }
#pragma unroll
    for (int p = 0; p < 3; ++p) {
      const int m = min(m0 + p, c.M - 1);
      if (mode == F32X2 || mode == F32X4) {
        // Float vector atomics (sm_90, global memory): aligned pairs or quads of one row.
        float* row = static_cast<float*>(map) + size_t(m) * c.N;
        constexpr int V = mode == F32X2 ? 2 : 4;
        const int base = n0 & ~(V - 1);
        float v[2 * V] = {};
#pragma unroll
        for (int k = 0; k < 3; ++k) v[n0 - base + k] = ox[p] * oy[k];
#pragma unroll
        for (int w = 0; w < 2; ++w) {
          if (base + w * V >= c.N) break;
          bool any = false;
#pragma unroll
          for (int k = 0; k < V; ++k) any |= v[w * V + k] != 0.f;
          if (!any) continue;
          if constexpr (V == 2) atomicAdd(reinterpret_cast<float2*>(row + base + w * V), make_float2(v[w * V], v[w * V + 1]));
          else atomicAdd(reinterpret_cast<float4*>(row + base + w * V), make_float4(v[w * V], v[w * V + 1], v[w * V + 2], v[w * V + 3]));
        }
        continue;
      }
      if (mode == PACKED || mode == PACKED_TWO_MAPS) {
        // Words of two bins (n even: low half, n odd: high half). Two maps: the last 45 % of
        // the cells (the fillers) go to a second map right after the first.
        const size_t map_offset = mode == PACKED_TWO_MAPS && i >= c.n / 20 * 11 ? size_t(c.M) * (c.N / 2) : 0;
        unsigned long long* row = static_cast<unsigned long long*>(map) + map_offset + size_t(m) * (c.N / 2);
        unsigned q[3];
#pragma unroll
        for (int k = 0; k < 3; ++k) q[k] = __float2uint_rn(ox[p] * oy[k] * 16777216.f);
        const int w0 = n0 >> 1;
        unsigned long long a, b;
        if ((n0 & 1) == 0) { a = q[0] | (static_cast<unsigned long long>(q[1]) << 32); b = q[2]; }
        else { a = static_cast<unsigned long long>(q[0]) << 32; b = q[1] | (static_cast<unsigned long long>(q[2]) << 32); }
        if (a) atomicAdd(row + w0, a);
        if (b && w0 + 1 < c.N / 2) atomicAdd(row + w0 + 1, b);
        sum += q[0] + q[1] + q[2];
        continue;
      }
#pragma unroll
      for (int k = 0; k < 3; ++k) {
        const int n = min(n0 + k, c.N - 1);
        const float v = ox[p] * oy[k];
        const size_t idx = size_t(m) * c.N + n;
        if (mode == U64) {
          const unsigned long long q = static_cast<unsigned long long>(llrintf(v * 4294967296.f));
          if (q) atomicAdd(static_cast<unsigned long long*>(map) + idx, q);
          sum += q;
        } else if (mode == U32 || mode == U32_RED) {
          const unsigned q = __float2uint_rn(v * 16777216.f);
          if (q) atomicAdd(static_cast<unsigned*>(map) + idx, q);
          sum += q;
        } else if (mode == F32) {
          if (v > 0.f) atomicAdd(static_cast<float*>(map) + idx, v);
        } else {
          sum += __float2uint_rn(v * 16777216.f);
        }
      }
    }
  }
  // One total per block, no atomics (the overflow check needs the exact sum of all
  // contributions; a single-address atomic per warp serializes: 125K of them cost 0.1 ms).
  __shared__ unsigned long long warp_sums[8];
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long s = 0;
    for (int k = 0; k < 8; ++k) s += warp_sums[k];
    total[blockIdx.x] = s;
  }
}

int main() {
  const int M = 2048, N = 2048, n = 4021910;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> px(0.f, M - 3.f), py(0.f, N - 3.f), sz(1.4142f, 2.0f);
  std::vector<float> hx(n), hy(n), hw(n), hh(n);
  for (int i = 0; i < n; ++i) { hx[i] = px(rng); hy[i] = py(rng); hw[i] = sz(rng); hh[i] = sz(rng); }
  float *x, *y, *w, *h; void* map; unsigned long long* total;
  CHECK(cudaMalloc(&x, n * 4)); CHECK(cudaMalloc(&y, n * 4)); CHECK(cudaMalloc(&w, n * 4)); CHECK(cudaMalloc(&h, n * 4));
  CHECK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice)); CHECK(cudaMemcpy(y, hy.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(w, hw.data(), n * 4, cudaMemcpyHostToDevice)); CHECK(cudaMemcpy(h, hh.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&map, size_t(M) * N * 8)); CHECK(cudaMalloc(&total, 8 * ((n + 255) / 256)));
  Cells c{x, y, w, h, n, M, N};
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const char* names[] = {"u64 per bin", "u32 per bin", "u64 packed pairs", "f32 per bin", "no atomics", "u32 per bin (again)", "u64 packed, two maps", "f32x2 vector atomics", "f32x4 vector atomics"};
  for (int mode = 0; mode < 9; ++mode) {
    const size_t bytes = size_t(M) * N * (mode == U64 || mode == PACKED_TWO_MAPS ? 8 : 4);
    std::vector<float> t;
    for (int r = 0; r < 60; ++r) {
      CHECK(cudaMemsetAsync(map, 0, bytes));
      cudaEventRecord(e0);
      switch (mode) {
        case 0: rasterize<0><<<(n + 255) / 256, 256>>>(c, map, total); break;
        case 1: rasterize<1><<<(n + 255) / 256, 256>>>(c, map, total); break;
        case 2: rasterize<2><<<(n + 255) / 256, 256>>>(c, map, total); break;
        case 3: rasterize<3><<<(n + 255) / 256, 256>>>(c, map, total); break;
        case 4: rasterize<4><<<(n + 255) / 256, 256>>>(c, map, total); break;
        case 5: rasterize<5><<<(n + 255) / 256, 256>>>(c, map, total); break;
        case 6: rasterize<6><<<(n + 255) / 256, 256>>>(c, map, total); break;
        case 7: rasterize<7><<<(n + 255) / 256, 256>>>(c, map, total); break;
        default: rasterize<8><<<(n + 255) / 256, 256>>>(c, map, total); break;
      }
      cudaEventRecord(e1); CHECK(cudaEventSynchronize(e1));
      float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 10) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    std::printf("%-22s median %.4f ms  (min %.4f)\n", names[mode], t[t.size() / 2], t[0]);
  }
  CHECK(cudaGetLastError());
  return 0;
}
