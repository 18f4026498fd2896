// Probe: does the H200's L2 serve random accesses by request or by sector? A group of G lanes
// visits one random 128-byte line per step; each lane makes P accesses of 16 bytes, S bytes
// apart (lane g, access p at byte (g * P + p) * S of the line). Reads (float4 loads) and
// reductions (float4 atomicAdd, red.global.add.v4.f32) over a 32 MB buffer (the float field map
// and the two charge maps at 2048^2). Standalone:
//   nvcc -O3 -arch=sm_90 -std=c++17 l2_request_shapes_probe.cu -o probe && ./probe
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

constexpr int kSteps = 8;

template <bool kRed, int G, int S, int P>
__global__ void visit(float4* buf, unsigned lines, unsigned seed, float* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned group = t / G, lane = t % G;
  float s = 0;
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {
    const unsigned line = hash32(group * kSteps + k + seed) % lines;
#pragma unroll
    for (int p = 0; p < P; ++p) {
      float4* a = buf + line * 8 + ((lane * P + p) * S) / 16;
      if constexpr (kRed) {
        atomicAdd(a, make_float4(1.f, 1.f, 1.f, 1.f));
      } else {
        const float4 v = *a;
        s += v.x + v.y + v.z + v.w;
      }
    }
  }
  if (!kRed && s == 12345.f) out[0] = s;
}

template <bool kRed, int G, int S, int P>
void measure(float4* buf, size_t bytes, float* out, cudaStream_t st, cudaEvent_t a, cudaEvent_t b) {
  const unsigned lines = unsigned(bytes / 128);
  const int threads = 256, blocks = 16384 / (P > 1 ? P : 1);
  std::vector<float> t;
  for (int r = 0; r < 25; ++r) {
    CHECK(cudaEventRecord(a, st));
    visit<kRed, G, S, P><<<blocks, threads, 0, st>>>(buf, lines, 977u * r, out);
    CHECK(cudaEventRecord(b, st));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 5) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  const double ms = t[t.size() / 2];
  const double visits = double(blocks) * threads / G * kSteps;  // line visits
  const double accesses = visits * G * P;                        // 16-byte accesses
  const int span = G * P * S;                                    // bytes of the line touched
  const int sectors = std::min(4, (span + 31) / 32 * (S >= 32 ? 1 : 1));
  std::printf("%-5s %2zu MB G=%d S=%2d P=%d (span %3d B, ~%d sectors/visit): %.3f ms, %6.2f G visits/s, %6.2f G accesses/s\n",
              kRed ? "red" : "load", bytes >> 20, G, S, P, span, sectors, ms, visits / ms / 1e6, accesses / ms / 1e6);
}

int main() {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("%s: L2 %d MB, %d SMs\n", p.name, p.l2CacheSize >> 20, p.multiProcessorCount);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const size_t bytes = size_t(32) << 20;
  float4* buf;
  float* out;
  CHECK(cudaMalloc(&buf, bytes));
  CHECK(cudaMalloc(&out, 4));
  CHECK(cudaMemset(buf, 0, bytes));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (size_t mb : {size_t(16), size_t(32)}) {
    const size_t n = mb << 20;
    measure<false, 1, 16, 1>(buf, n, out, s, a, b);  // one random 16 B read (the old probe)
    measure<false, 1, 32, 2>(buf, n, out, s, a, b);  // one lane, 2 sectors of a line, 2 instructions (the gather now)
    measure<false, 1, 16, 2>(buf, n, out, s, a, b);  // one lane, both halves of a sector
    measure<false, 2, 16, 1>(buf, n, out, s, a, b);  // 2 lanes, one sector
    measure<false, 2, 32, 1>(buf, n, out, s, a, b);  // 2 lanes, 2 sectors of a line, one instruction
    measure<false, 4, 32, 1>(buf, n, out, s, a, b);  // 4 lanes, 4 sectors
    measure<false, 8, 16, 1>(buf, n, out, s, a, b);  // 8 lanes, the whole line
    measure<false, 4, 16, 1>(buf, n, out, s, a, b);  // 4 lanes, 2 adjacent sectors
    measure<true, 1, 16, 1>(buf, n, out, s, a, b);   // one float4 reduction (rasterize now)
    measure<true, 1, 16, 2>(buf, n, out, s, a, b);   // one lane, both halves of a sector, 2 instructions
    measure<true, 2, 16, 1>(buf, n, out, s, a, b);   // 2 lanes, one sector, one instruction
    measure<true, 2, 32, 1>(buf, n, out, s, a, b);   // 2 lanes, 2 sectors of a line
    measure<true, 4, 16, 1>(buf, n, out, s, a, b);   // 4 lanes, 2 sectors
    measure<true, 8, 16, 1>(buf, n, out, s, a, b);   // 8 lanes, whole line
  }
  return 0;
}
