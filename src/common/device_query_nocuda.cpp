// Stand-ins for a build without the CUDA backend (see kernels/common/device_query.cu).
#include "common/device_properties.hpp"
#include "common/device_scope.hpp"
#include "common/host_pinning.hpp"
#include "efield/device.hpp"

namespace efield {

bool built_with_cuda() noexcept { return false; }
int cuda_device_count() noexcept { return 0; }
bool is_device_pointer(const void*) noexcept { return false; }
bool is_pinned_host_pointer(const void*) noexcept { return false; }

PinnedHostRange::PinnedHostRange(const void*, std::size_t) {}
PinnedHostRange::~PinnedHostRange() = default;
PinnedHostRange& PinnedHostRange::operator=(PinnedHostRange&& other) noexcept {
  data_ = other.data_;
  other.data_ = nullptr;
  return *this;
}
void PinnedHostRange::release() noexcept { data_ = nullptr; }

}  // namespace efield

namespace efield::detail {

int current_cuda_device() { return -1; }
int current_compute_capability() { return 0; }
std::string cuda_unavailable_reason() { return "efield was built without CUDA"; }
std::string current_device_identity() { return {}; }
std::uint64_t host_pinning_generation() noexcept { return 0; }
DeviceScope::DeviceScope(int) {}
DeviceScope::~DeviceScope() = default;

}  // namespace efield::detail
