// A CUDA build on a machine without the CUDA libraries. ctest's cuda_hidden_* tests run this
// program (and some CPU test programs) with LD_AUDIT=libefield_hide_cuda.so, which hides libcuda,
// libcudart and libcufft from the loader, and EFIELD_TEST_CUDA_HIDDEN=1; run plainly it skips.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "efield/efield.hpp"
#if EFIELD_HAS_CUDA
#include "common/cufft_loader.hpp"
#endif

namespace {

bool libraries_hidden_by_ctest() {
  const char* flag = std::getenv("EFIELD_TEST_CUDA_HIDDEN");
  return flag != nullptr && std::string(flag) == "1";
}

#define EFIELD_REQUIRE_HIDDEN()                                                                       \
  if (!libraries_hidden_by_ctest())                                                                   \
  GTEST_SKIP() << "runs as ctest's cuda_hidden_foundation (LD_AUDIT hides the CUDA libraries there)"

// The lines of /proc/self/maps that map a CUDA library.
std::string mapped_cuda_libraries() {
  std::ifstream maps("/proc/self/maps");
  std::string line, found;
  while (std::getline(maps, line))
    for (const char* name : {"libcuda.", "libcudart.", "libcufft."})
      if (line.find(name) != std::string::npos) found += line + "\n";
  return found;
}

std::string message_of(void (*call)()) {
  try {
    call();
  } catch (const efield::Error& e) {
    return e.what();
  }
  return "(no efield::Error thrown)";
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(CudaHidden, TheLibrariesAreReallyAbsent) {
  EFIELD_REQUIRE_HIDDEN();
  EXPECT_EQ(efield::cuda_device_count(), 0);  // the runtime tried to load the driver here
  for (const char* name : {"libcuda.so.1", "libcudart.so", "libcufft.so"}) {
    void* handle = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    EXPECT_EQ(handle, nullptr) << name << " is loaded";
    handle = dlopen(name, RTLD_NOW);
    EXPECT_EQ(handle, nullptr) << name << " can be loaded: the audit library does not hide it";
  }
  EXPECT_EQ(mapped_cuda_libraries(), "");
}

TEST(CudaHidden, AutoResolvesToTheCpuAndCudaRaisesAClearError) {
  EFIELD_REQUIRE_HIDDEN();
  EXPECT_EQ(efield::built_with_cuda(), EFIELD_HAS_CUDA != 0);
  EXPECT_EQ(efield::resolve_backend(efield::Backend::Auto), efield::Backend::Cpu);
  const std::string plan = message_of([] {
    efield::PlanOptions options;
    options.backend = efield::Backend::Cuda;
    efield::Plan2D<float>(efield::Transform2D::Dct2, 8, 8, options);
  });
  EXPECT_CONTAINS(plan, "CUDA is unavailable here");
#if EFIELD_HAS_CUDA
  EXPECT_CONTAINS(plan, "libcuda.so.1");
#endif
  // A CPU plan works as in any build.
  efield::PlanOptions cpu;
  cpu.backend = efield::Backend::Auto;
  efield::Plan2D<float> dct2(efield::Transform2D::Dct2, 4, 4, cpu);
  EXPECT_EQ(dct2.backend(), efield::Backend::Cpu);
  std::vector<float> in(16, 1.0f), out(16, 0.0f);
  dct2.execute_host(in.data(), out.data());
  EXPECT_FLOAT_EQ(out[0], 16.0f);  // the DC term of DREAMPlace's unnormalized DCT-II of ones
  EXPECT_EQ(mapped_cuda_libraries(), "");
}

#if EFIELD_HAS_CUDA
TEST(CudaHidden, CufftLoadFailureNamesTheLibrary) {
  EFIELD_REQUIRE_HIDDEN();
  const std::string message = message_of([] { efield::detail::require_cufft(); });
  EXPECT_CONTAINS(message, efield::detail::cufft_library_name() + "), which could not be loaded");
  EXPECT_EQ(mapped_cuda_libraries(), "");
}
#endif

}  // namespace
