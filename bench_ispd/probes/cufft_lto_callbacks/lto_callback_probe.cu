// Standalone probe (not built by CMake; commands in README.md): does cuFFT accept batched LTO
// callback plans (cufftXtSetJITCallback, CUDA 13 signature) in the layouts a two-pass 2D DCT
// needs, and what do trivial callbacks cost? Times each plan (median of 50 after 10 warm-ups)
// next to the same plan without callbacks and cuFFT's 2D R2C/C2R.
//   lto_callback_probe callbacks_all.fatbin callbacks_load.fatbin callbacks_store.fatbin
// Layouts: 0 cufftMakePlan1d, 1 cufftMakePlanMany basic, 2 explicit row layout, 3 columns
// (stride = batch, distance 1). "[split]": load and store callbacks from separate fatbins.
#include <cufftXt.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <fstream>
#include <iterator>
#include <string>
#include <algorithm>
struct Params { float* out; const float2* tw; int n; };
static std::vector<char> fat, fat_ld, fat_st;
static bool split = false;
struct Cb { const char* name; cufftXtCallbackType type; };
#define CK(x) do { cudaError_t e = (x); if (e) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
static float time_plan(cufftHandle p, bool r2c, void* in, void* out) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> t;
  for (int i = 0; i < 60; ++i) { cudaEventRecord(a); if (r2c) cufftExecR2C(p, (float*)in, (cufftComplex*)out); else cufftExecC2R(p, (cufftComplex*)in, (float*)out);
    cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 10) t.push_back(ms * 1000); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
// kind: 0 plan1d, 1 planMany basic(NULL embed), 2 planMany explicit rows, 3 columns (stride batch, dist 1)
static void probe(const char* label, int n, int batch, int kind, bool r2c, Cb ld, Cb st, void* info, void* in, void* out) {
  cufftHandle p; cufftCreate(&p);
  void* ci = info; cufftResult r = CUFFT_SUCCESS;
  if (ld.name) r = split ? cufftXtSetJITCallback(p, ld.name, fat_ld.data(), fat_ld.size(), ld.type, &ci) : cufftXtSetJITCallback(p, ld.name, fat.data(), fat.size(), ld.type, &ci);
  if (r == CUFFT_SUCCESS && st.name) r = split ? cufftXtSetJITCallback(p, st.name, fat_st.data(), fat_st.size(), st.type, &ci) : cufftXtSetJITCallback(p, st.name, fat.data(), fat.size(), st.type, &ci);
  size_t ws = 0; cufftResult mk = CUFFT_SUCCESS;
  cufftType ty = r2c ? CUFFT_R2C : CUFFT_C2R;
  if (r == CUFFT_SUCCESS) {
    int len = n, re = n, ce = n / 2 + 1;
    int ie = r2c ? re : ce, oe = r2c ? ce : re;
    if (kind == 0) mk = cufftMakePlan1d(p, n, ty, batch, &ws);
    else if (kind == 1) mk = cufftMakePlanMany(p, 1, &len, nullptr, 1, 0, nullptr, 1, 0, ty, batch, &ws);
    else if (kind == 2) mk = cufftMakePlanMany(p, 1, &len, &ie, 1, ie, &oe, 1, oe, ty, batch, &ws);
    else mk = cufftMakePlanMany(p, 1, &len, &ie, batch, 1, &oe, batch, 1, ty, batch, &ws);
  }
  float us = -1;
  if (r == CUFFT_SUCCESS && mk == CUFFT_SUCCESS) { us = time_plan(p, r2c, in, out); cudaError_t e = cudaDeviceSynchronize(); if (e) printf("  exec error %s\n", cudaGetErrorString(e)); }
  printf("%s%-34s n=%5d batch=%5d layout=%d %s ld=%-20s st=%-20s setcb=%d make=%d  %8.1f us\n", split ? "[split] " : "", label, n, batch, kind, r2c ? "R2C" : "C2R",
         ld.name ? ld.name : "-", st.name ? st.name : "-", (int)r, (int)mk, us);
  fflush(stdout);
  cufftDestroy(p);
}
int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary); fat.assign(std::istreambuf_iterator<char>(f), {});
  { std::ifstream g(argv[2], std::ios::binary); fat_ld.assign(std::istreambuf_iterator<char>(g), {}); }
  { std::ifstream g(argv[3], std::ios::binary); fat_st.assign(std::istreambuf_iterator<char>(g), {}); }
  printf("fatbin %zu bytes, ld %zu, st %zu\n", fat.size(), fat_ld.size(), fat_st.size());
  int ver; cufftGetVersion(&ver); printf("cufft version %d\n", ver);
  size_t big = 8192ull * 8192 * 2 + 8192 * 4;
  float *in, *out, *dat; CK(cudaMalloc(&in, big * 4)); CK(cudaMalloc(&out, big * 4)); CK(cudaMalloc(&dat, big * 4));
  CK(cudaMemset(in, 0, big * 4)); CK(cudaMemset(dat, 0, big * 4));
  float2* tw; CK(cudaMalloc(&tw, 8192 * 8)); CK(cudaMemset(tw, 0, 8192 * 8));
  Params hp{out, tw, 0}; Params* dp; CK(cudaMalloc(&dp, sizeof(Params)));
  Cb none{nullptr, CUFFT_CB_LD_REAL};
  Cb ldr{"ld_real_identity", CUFFT_CB_LD_REAL}, ldi{"ld_real_info", CUFFT_CB_LD_REAL}, stc{"st_complex_identity", CUFFT_CB_ST_COMPLEX};
  Cb ldc{"ld_complex_identity", CUFFT_CB_LD_COMPLEX}, str_{"st_real_identity", CUFFT_CB_ST_REAL}, stdct{"st_complex_dct", CUFFT_CB_ST_COMPLEX};
  probe("A tiny", 256, 1, 0, true, ldr, none, nullptr, in, out);
  probe("A tiny batch", 256, 16, 0, true, ldr, none, nullptr, in, out);
  for (int n : {2048, 4096, 8192}) {
    hp.n = n; CK(cudaMemcpy(dp, &hp, sizeof hp, cudaMemcpyHostToDevice));
    printf("---- n = %d\n", n);
    for (int kind : {0, 1, 2, 3}) { if (n > 2048 && kind < 2) continue;
      probe("plain", n, n, kind, true, none, none, nullptr, in, out);
      if (n == 2048) probe("load identity", n, n, kind, true, ldr, none, nullptr, in, out);
      if (n == 2048) probe("store identity", n, n, kind, true, none, stc, nullptr, in, out);
      probe("both identity", n, n, kind, true, ldr, stc, nullptr, in, out);
      probe("plain C2R", n, n, kind, false, none, none, nullptr, in, out);
      probe("C2R load+store identity", n, n, kind, false, ldc, str_, nullptr, in, out);
    }
    probe("load info", n, n, 2, true, ldi, none, dat, in, out);
    probe("store dct2out", n, n, 2, true, ldr, stdct, dp, in, out);
    probe("store dct2out (kind0)", n, n, 0, true, ldr, stdct, dp, in, out);
    split = true;
    for (int kind : {0, 2, 3}) {
      probe("both identity", n, n, kind, true, ldr, stc, nullptr, in, out);
      probe("C2R load+store identity", n, n, kind, false, ldc, str_, nullptr, in, out);
    }
    probe("store dct2out", n, n, 2, true, ldr, stdct, dp, in, out);
    split = false;
    // 2D reference
    cufftHandle p2; cufftPlan2d(&p2, n, n, CUFFT_R2C); printf("2D R2C %d^2: %.1f us\n", n, time_plan(p2, true, in, out)); cufftDestroy(p2);
    cufftPlan2d(&p2, n, n, CUFFT_C2R); printf("2D C2R %d^2: %.1f us\n", n, time_plan(p2, false, in, out)); cufftDestroy(p2);
  }
  return 0;
}
