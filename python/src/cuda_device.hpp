#pragma once
// The few CUDA runtime calls the extension makes itself: which device a pointer lives on, making
// an array's device current around a call, and ordering one stream after another. Compiled from
// cuda_device_cuda.cpp when the library has the CUDA backend, else from cuda_device_nocuda.cpp,
// whose functions are no-ops (or throw where a CUDA array reached a build without CUDA).
#include <cstddef>
#include <cstdint>

#include "common/device_scope.hpp"
#include "efield/device.hpp"

namespace efield::python {

// The device ordinal that owns `ptr` (device or managed memory); throws efield::Error otherwise.
int pointer_device(const void* ptr);

// The current CUDA device (-1 without CUDA or without a device), and the guard that makes an
// array's or a system's device current around a call: the library's own (src/common/device_scope.hpp).
inline int current_device() { return cuda_device_count() > 0 ? detail::current_cuda_device() : -1; }
using DeviceGuard = detail::DeviceScope;

// A stream handle as the array protocols write it: __cuda_array_interface__'s `stream` and
// DLPack's `stream` argument use 1 for the legacy default stream and 2 for the per-thread
// default stream; any other value is a cudaStream_t. 0 (no stream named) reads as the legacy one.
Stream stream_from_protocol(std::uintptr_t value);

// Whether `stream` (the library's name: nullptr is the legacy default stream) is capturing a CUDA
// graph, as torch.cuda.is_current_stream_capturing asks it of the current stream.
bool stream_capturing(Stream stream);

// Makes work enqueued later on `consumer` wait for what is enqueued on `producer` so far
// (an event, no host synchronisation). Does nothing when the two are the same stream.
void order_after(Stream producer, Stream consumer);

// cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream): any memory CUDA can address
// (device, managed, pinned host), ordered on the stream.
void copy_async(void* dst, const void* src, std::size_t bytes, Stream stream);

// A page-locked host slot of 8 bytes: a value known on the host reaches device memory through
// copy_async from it (no pageable staging, no kernel). Rewrite it only once the last copy from
// it has run.
class PinnedSlot {
 public:
  PinnedSlot();
  ~PinnedSlot();
  PinnedSlot(const PinnedSlot&) = delete;
  PinnedSlot& operator=(const PinnedSlot&) = delete;
  void* get() const { return slot_; }

 private:
  void* slot_ = nullptr;
};

}  // namespace efield::python
