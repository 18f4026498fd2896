// Build without the CUDA backend: host arrays only.
#include "cuda_device.hpp"
#include "efield/error.hpp"

namespace efield::python {

int pointer_device(const void*) {
  throw Error("efield: a CUDA array was given, but this efield was built without the CUDA backend");
}
Stream stream_from_protocol(std::uintptr_t) { return nullptr; }
bool stream_capturing(Stream) { return false; }
void order_after(Stream, Stream) {}
void copy_async(void*, const void*, std::size_t, Stream) {
  throw Error("efield: a CUDA copy was asked for, but this efield was built without the CUDA backend");
}

PinnedSlot::PinnedSlot() = default;
PinnedSlot::~PinnedSlot() = default;

}  // namespace efield::python
