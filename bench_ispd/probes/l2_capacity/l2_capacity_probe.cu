// Probe: how large a buffer of random 16-byte reads stays in the H200's L2 (the gather reads the
// (Ex, Ey) map at random, 32 MB at 2048^2 in float), with and without an L2 access policy window
// that marks the buffer persisting. Standalone:
//   nvcc -O3 -arch=sm_90 -std=c++17 l2_capacity_probe.cu -o probe && ./probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

__device__ __forceinline__ unsigned hash32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}

// Each thread: kLoads random float4 reads of buf (n float4), summed.
template <int kLoads>
__global__ void random_reads(const float4* buf, unsigned n, unsigned seed, float* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
#pragma unroll
  for (int k = 0; k < kLoads; ++k) {
    const float4 v = buf[hash32(t * kLoads + k + seed) % n];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 12345.f) out[0] = s;
}

int main() {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("%s: L2 %d MB, persisting max %d MB, access policy max window %d MB\n", p.name, p.l2CacheSize >> 20,
              p.persistingL2CacheMaxSize >> 20, p.accessPolicyMaxWindowSize >> 20);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const size_t max_bytes = size_t(96) << 20;
  float4* buf;
  float* out;
  CHECK(cudaMalloc(&buf, max_bytes));
  CHECK(cudaMalloc(&out, 4));
  CHECK(cudaMemset(buf, 0, max_bytes));
  constexpr int kLoads = 8;
  const int threads = 256, blocks = 16384;  // 33.5 M loads per launch
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int persist = 0; persist < 2; ++persist) {
    for (int mb : {8, 12, 16, 20, 24, 28, 32, 40, 48, 64, 96}) {
      const unsigned n = unsigned((size_t(mb) << 20) / sizeof(float4));
      cudaStreamAttrValue attr = {};
      if (persist) {
        const size_t want = std::min<size_t>(size_t(mb) << 20, p.persistingL2CacheMaxSize);
        CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, want));
        attr.accessPolicyWindow.base_ptr = buf;
        attr.accessPolicyWindow.num_bytes = std::min<size_t>(size_t(mb) << 20, p.accessPolicyMaxWindowSize);
        attr.accessPolicyWindow.hitRatio = std::min(1.0f, float(want) / float(attr.accessPolicyWindow.num_bytes));
        attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
      }
      CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &attr));
      std::vector<float> t;
      for (int r = 0; r < 30; ++r) {
        CHECK(cudaEventRecord(a, s));
        random_reads<kLoads><<<blocks, threads, 0, s>>>(buf, n, 977u * r, out);
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 5) t.push_back(ms);
      }
      std::sort(t.begin(), t.end());
      const double loads = double(blocks) * threads * kLoads;
      std::printf("%s %3d MB: %.3f ms, %.2f G loads/s, %.2f TB/s of sectors\n", persist ? "persisting" : "normal    ", mb,
                  t[t.size() / 2], loads / t[t.size() / 2] / 1e6, loads * 32 / t[t.size() / 2] / 1e9);
      if (persist) {
        attr.accessPolicyWindow.num_bytes = 0;
        CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &attr));
        CHECK(cudaCtxResetPersistingL2Cache());
      }
    }
  }
  return 0;
}
