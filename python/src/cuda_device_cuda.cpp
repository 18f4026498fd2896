// CUDA build of cuda_device.hpp.
#include <cuda_runtime_api.h>

#include <string>

#include "cuda_device.hpp"
#include "efield/error.hpp"

namespace efield::python {
namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess)
    throw Error(std::string("efield: ") + call + " failed: " + cudaGetErrorString(status));
}

}  // namespace

int pointer_device(const void* ptr) {
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, ptr);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear it, so that the next CUDA call does not report it again
    throw Error(std::string("efield: cannot tell which CUDA device owns a CUDA array (") +
                cudaGetErrorString(status) + ")");
  }
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
    throw Error("efield: an array that says it is CUDA memory is not device or managed memory");
  return attributes.device;
}

Stream stream_from_protocol(std::uintptr_t value) {
  if (value == 0 || value == 1) return nullptr;  // the library's name for the legacy default stream
  if (value == 2) return cudaStreamPerThread;
  return reinterpret_cast<Stream>(value);
}

bool stream_capturing(Stream stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &status), "cudaStreamIsCapturing");
  return status != cudaStreamCaptureStatusNone;
}

void order_after(Stream producer, Stream consumer) {
  if (producer == consumer) return;
  cudaEvent_t event = nullptr;
  check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  cudaError_t status = cudaEventRecord(event, producer);
  if (status == cudaSuccess) status = cudaStreamWaitEvent(consumer, event, 0);
  cudaEventDestroy(event);  // released once the wait completes; safe to destroy now
  check(status, "cudaEventRecord/cudaStreamWaitEvent");
}

void copy_async(void* dst, const void* src, std::size_t bytes, Stream stream) {
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream), "cudaMemcpyAsync");
}

PinnedSlot::PinnedSlot() { check(cudaMallocHost(&slot_, 8), "cudaMallocHost"); }
PinnedSlot::~PinnedSlot() { cudaFreeHost(slot_); }

}  // namespace efield::python
