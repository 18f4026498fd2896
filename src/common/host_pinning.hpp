#pragma once
// Internal: a counter that every PinnedHostRange registration and release advances, so that a
// pipeline which remembers whether a caller's arrays are page-locked asks again only after one.
#include <cstdint>

namespace efield::detail {

std::uint64_t host_pinning_generation() noexcept;

}  // namespace efield::detail
