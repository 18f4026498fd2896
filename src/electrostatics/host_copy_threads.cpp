// The host-copy thread count (host_copy_threads.hpp): one process-wide value, read when a CUDA
// system is constructed.
#include "electrostatics/host_copy_threads.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace efield::detail {
namespace {

std::atomic<int> requested{0};

}  // namespace

int set_host_copy_threads(int threads) { return requested.exchange(std::max(0, threads)); }

int host_copy_threads() {
  const int want = requested.load() > 0 ? requested.load() : kHostCopyThreads;
  const unsigned hw = std::thread::hardware_concurrency();
  return std::max(1, std::min(want, hw > 0 ? static_cast<int>(hw) : 1));
}

}  // namespace efield::detail
