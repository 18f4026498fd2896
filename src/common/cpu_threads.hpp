#pragma once
// The one check of every cpu_threads option: 0 (all hardware threads) to kMaxCpuThreads.
#include <string>

#include "efield/device.hpp"
#include "efield/error.hpp"

namespace efield::detail {

inline void check_cpu_threads(int threads, const std::string& who) {
  if (threads < 0 || threads > kMaxCpuThreads)
    throw Error(who + ": cpu_threads " + std::to_string(threads) + " is outside 0.." + std::to_string(kMaxCpuThreads) +
                " (0 = all hardware threads)");
}

}  // namespace efield::detail
