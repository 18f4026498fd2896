#include "support/random.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>

namespace efield::test {

std::uint64_t next_seed() {
  static const std::uint64_t base = [] {
    if (const char* s = std::getenv("EFIELD_TEST_SEED")) return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 10));
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  static std::atomic<std::uint64_t> counter{0};
  return base * 6364136223846793005ULL + 1442695040888963407ULL * (++counter);
}

}  // namespace efield::test
