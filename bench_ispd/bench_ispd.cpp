// bench_ispd: the timing driver. (Foundation version: reports the build and backend; the
// Bookshelf-driven electrostatic benchmark replaces this body.)
#include <cstdio>
#include <cstring>

#include "efield/efield.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: bench_ispd [--help]\n");
      return 0;
    }
  }
  std::printf("efield bench_ispd: CUDA built=%d devices=%d backend=%s\n", efield::built_with_cuda(),
              efield::cuda_device_count(), efield::to_string(efield::resolve_backend(efield::Backend::Auto)));
  return 0;
}
