// LTO-IR callbacks of the probe (lto_callback_probe.cu), all in one fatbin: the load and store
// callbacks of the two split fatbins plus a load through callerInfo.
#include "callbacks_load.cu"
#include "callbacks_store.cu"
__device__ cufftReal ld_real_info(void*, unsigned long long off, void* info, void*) { return static_cast<const float*>(info)[off]; }
