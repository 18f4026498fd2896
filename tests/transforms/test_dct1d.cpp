// Plan1D: every 1D transform and every DCT algorithm against the float64 dense reference of
// docs/math.md 1, on the CPU backend and (when a device is present) the CUDA backend.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "efield/efield.hpp"
#include "reference/dense_transforms.hpp"
#include "support/device_array.hpp"
#include "support/gpu.hpp"
#include "support/random.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using efield::Backend;
using efield::DctAlgorithm;
using efield::Plan1D;
using efield::PlanOptions;
using efield::Transform1D;
namespace et = efield::test;

const std::vector<int> kSizes{1, 2, 3, 5, 7, 8, 16, 17, 31, 64, 100, 127, 128, 255};
const std::vector<int> kBatches{1, 3, 8};
const std::vector<DctAlgorithm> kAlgorithms{DctAlgorithm::NPoint, DctAlgorithm::Mirrored2N, DctAlgorithm::Padded2N,
                                            DctAlgorithm::FourN};

const char* name(DctAlgorithm a) {
  switch (a) {
    case DctAlgorithm::NPoint: return "NPoint";
    case DctAlgorithm::Mirrored2N: return "Mirrored2N";
    case DctAlgorithm::Padded2N: return "Padded2N";
    case DctAlgorithm::FourN: return "FourN";
  }
  return "?";
}
const char* name(Transform1D k) {
  switch (k) {
    case Transform1D::Dct: return "Dct";
    case Transform1D::Idct: return "Idct";
    case Transform1D::Idxst: return "Idxst";
  }
  return "?";
}

// How a case hands its arrays to the plan.
enum class Memory { Host, Device, HostThroughExecuteHost };

PlanOptions on(Backend b, int threads = 2) {
  PlanOptions o;
  o.backend = b;
  o.cpu_threads = threads;
  return o;
}

// Runs one plan on fresh random input (output poisoned with NaN) and returns the output.
template <typename T>
std::vector<T> run(Plan1D<T>& plan, const std::vector<T>& x, Memory memory, bool in_place) {
  std::vector<T> y = et::poisoned<T>(x.size());
  switch (memory) {
    case Memory::Host:
      if (in_place) {
        y = x;
        plan.execute(y.data(), y.data());
      } else {
        plan.execute(x.data(), y.data());
      }
      break;
    case Memory::HostThroughExecuteHost:
      if (in_place) {
        y = x;
        plan.execute_host(y.data(), y.data());
      } else {
        plan.execute_host(x.data(), y.data());
      }
      break;
    case Memory::Device: {
      et::DeviceArray<T> din(x);
      if (in_place) {
        plan.execute(din.get(), din.get());
        y = din.download();
      } else {
        et::DeviceArray<T> dout(et::poisoned<T>(x.size()));
        plan.execute(din.get(), dout.get());
        y = dout.download();
      }
      break;
    }
  }
  return y;
}

// One case: fresh seed, plan, run, compare with the dense reference.
template <typename T>
void check_case(Backend backend, Memory memory, Transform1D kind, DctAlgorithm algorithm, int n, int batch,
                bool in_place = false) {
  const auto seed = et::next_seed();
  SCOPED_TRACE(std::string(name(kind)) + " " + name(algorithm) + " n=" + std::to_string(n) + " batch=" +
               std::to_string(batch) + " seed=" + std::to_string(seed) + (in_place ? " in-place" : ""));
  const auto x = et::random_vector<T>(static_cast<size_t>(n) * batch, seed);
  Plan1D<T> plan(kind, n, batch, algorithm, on(backend));
  const auto y = run(plan, x, memory, in_place);
  const auto ref = et::dense_1d(kind, et::to_double(x), n, batch);
  EXPECT_LE(et::relative_l2(y, ref), et::tolerance<T>());
}

template <typename T>
class Dct1d : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Dct1d, Types);

// ---- CPU -------------------------------------------------------------------------------------

TYPED_TEST(Dct1d, CpuEveryDctAlgorithmMatchesDense) {
  for (auto algorithm : kAlgorithms)
    for (int n : kSizes)
      for (int batch : kBatches)
        check_case<TypeParam>(Backend::Cpu, Memory::Host, Transform1D::Dct, algorithm, n, batch);
}

TYPED_TEST(Dct1d, CpuIdctAndIdxstMatchDense) {
  for (auto kind : {Transform1D::Idct, Transform1D::Idxst})
    for (int n : kSizes)
      for (int batch : kBatches) check_case<TypeParam>(Backend::Cpu, Memory::Host, kind, DctAlgorithm::NPoint, n, batch);
}

TYPED_TEST(Dct1d, CpuInPlaceAndExecuteHost) {
  for (auto kind : {Transform1D::Dct, Transform1D::Idct, Transform1D::Idxst})
    for (int n : {1, 6, 17, 128}) {
      check_case<TypeParam>(Backend::Cpu, Memory::Host, kind, DctAlgorithm::NPoint, n, 3, true);
      check_case<TypeParam>(Backend::Cpu, Memory::HostThroughExecuteHost, kind, DctAlgorithm::NPoint, n, 3, false);
    }
  for (auto algorithm : kAlgorithms) check_case<TypeParam>(Backend::Cpu, Memory::Host, Transform1D::Dct, algorithm, 31, 2, true);
}

// Large enough to take the OpenMP paths of the pre/postprocessing (more than 2^15 elements).
TYPED_TEST(Dct1d, CpuParallelPathsMatchDense) {
  for (auto algorithm : kAlgorithms) check_case<TypeParam>(Backend::Cpu, Memory::Host, Transform1D::Dct, algorithm, 1000, 40);
  check_case<TypeParam>(Backend::Cpu, Memory::Host, Transform1D::Idct, DctAlgorithm::NPoint, 1000, 40);
  check_case<TypeParam>(Backend::Cpu, Memory::Host, Transform1D::Idxst, DctAlgorithm::NPoint, 999, 40);
  check_case<TypeParam>(Backend::Cpu, Memory::Host, Transform1D::Dct, DctAlgorithm::NPoint, 2, 40000);
}

TYPED_TEST(Dct1d, CpuRoundTripIsNTimesInput) {
  using T = TypeParam;
  for (int n : kSizes) {
    const auto seed = et::next_seed();
    SCOPED_TRACE("n=" + std::to_string(n) + " seed=" + std::to_string(seed));
    const auto x = et::random_vector<T>(static_cast<size_t>(n) * 3, seed);
    Plan1D<T> forward(Transform1D::Dct, n, 3, DctAlgorithm::NPoint, on(Backend::Cpu));
    Plan1D<T> inverse(Transform1D::Idct, n, 3, DctAlgorithm::NPoint, on(Backend::Cpu));
    auto y = et::poisoned<T>(x.size());
    forward.execute(x.data(), y.data());
    inverse.execute(y.data(), y.data());
    std::vector<double> nx(x.size());
    for (size_t i = 0; i < x.size(); ++i) nx[i] = static_cast<double>(n) * x[i];
    EXPECT_LE(et::relative_l2(y, nx), et::tolerance<T>());
  }
}

TYPED_TEST(Dct1d, ZeroBelowZeroesSmallCoefficientsOnly) {
  using T = TypeParam;
  const int n = 64, batch = 4;
  for (auto algorithm : kAlgorithms) {
    const auto seed = et::next_seed();
    SCOPED_TRACE(std::string(name(algorithm)) + " seed=" + std::to_string(seed));
    const auto x = et::random_vector<T>(static_cast<size_t>(n) * batch, seed);
    PlanOptions o = on(Backend::Cpu);
    o.zero_below = 2.0;
    Plan1D<T> plan(Transform1D::Dct, n, batch, algorithm, o);
    const auto y = run(plan, x, Memory::Host, false);
    const auto ref = et::dense_1d(Transform1D::Dct, et::to_double(x), n, batch);
    int zeroed = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      if (std::abs(ref[i]) < 1.99) {
        EXPECT_EQ(y[i], T(0)) << "i=" << i << " ref=" << ref[i];
        ++zeroed;
      } else if (std::abs(ref[i]) > 2.01) {
        EXPECT_NEAR(y[i], ref[i], 1e-4) << "i=" << i;
      }
    }
    EXPECT_GT(zeroed, 0);
  }
}

// ---- arguments -------------------------------------------------------------------------------

template <typename F>
void expect_error_naming(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected efield::Error naming '" << needle << "'";
  } catch (const efield::Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Dct1dArguments, BadArgumentsRaise) {
  const auto cpu = on(Backend::Cpu);
  expect_error_naming([&] { Plan1D<float>(Transform1D::Dct, 0, 1, DctAlgorithm::NPoint, cpu); }, "n must be >= 1");
  expect_error_naming([&] { Plan1D<float>(Transform1D::Dct, -3, 1, DctAlgorithm::NPoint, cpu); }, "got -3");
  expect_error_naming([&] { Plan1D<double>(Transform1D::Dct, 8, 0, DctAlgorithm::NPoint, cpu); }, "batch must be >= 1");
  expect_error_naming([&] { Plan1D<double>(Transform1D::Idct, 8, 1, DctAlgorithm::Mirrored2N, cpu); }, "Mirrored2N");
  expect_error_naming([&] { Plan1D<double>(Transform1D::Idxst, 8, 1, DctAlgorithm::FourN, cpu); }, "Idxst");
  expect_error_naming([&] { Plan1D<float>(static_cast<Transform1D>(7), 8, 1, DctAlgorithm::NPoint, cpu); }, "Transform1D");
  expect_error_naming([&] { Plan1D<float>(Transform1D::Dct, 8, 1, static_cast<DctAlgorithm>(9), cpu); }, "DctAlgorithm");
  expect_error_naming([&] { Plan1D<float>(Transform1D::Dct, 1 << 29, 1, DctAlgorithm::FourN, cpu); }, "too large");
  PlanOptions bad = cpu;
  bad.cpu_threads = -1;
  expect_error_naming([&] { Plan1D<float>(Transform1D::Dct, 8, 1, DctAlgorithm::NPoint, bad); }, "cpu_threads");
  bad = cpu;
  bad.zero_below = std::nan("");
  expect_error_naming([&] { Plan1D<float>(Transform1D::Dct, 8, 1, DctAlgorithm::NPoint, bad); }, "zero_below");

  Plan1D<float> plan(Transform1D::Dct, 8, 1, DctAlgorithm::NPoint, cpu);
  std::vector<float> x(8, 1.0f);
  expect_error_naming([&] { plan.execute(nullptr, x.data()); }, "`in` is null");
  expect_error_naming([&] { plan.execute(x.data(), nullptr); }, "`out` is null");
  expect_error_naming([&] { plan.execute_host(nullptr, x.data()); }, "`in` is null");
}

TEST(Dct1dArguments, AccessorsAndMove) {
  Plan1D<double> plan(Transform1D::Dct, 12, 5, DctAlgorithm::Padded2N, on(Backend::Cpu));
  EXPECT_EQ(plan.kind(), Transform1D::Dct);
  EXPECT_EQ(plan.algorithm(), DctAlgorithm::Padded2N);
  EXPECT_EQ(plan.size(), 12);
  EXPECT_EQ(plan.batch(), 5);
  EXPECT_EQ(plan.backend(), Backend::Cpu);
  Plan1D<double> moved(std::move(plan));
  EXPECT_EQ(moved.size(), 12);
  std::vector<double> x(60, 0.5), y(60);
  moved.execute(x.data(), y.data());
  EXPECT_NEAR(y[0], 6.0, 1e-12);  // X[0] = sum x
  EXPECT_NEAR(y[1], 0.0, 1e-12);
}

// ---- CUDA ------------------------------------------------------------------------------------

TYPED_TEST(Dct1d, CudaEveryTransformMatchesDenseWithDevicePointers) {
  EFIELD_REQUIRE_GPU();
  for (auto algorithm : kAlgorithms)
    for (int n : kSizes)
      for (int batch : kBatches)
        check_case<TypeParam>(Backend::Cuda, Memory::Device, Transform1D::Dct, algorithm, n, batch);
  for (auto kind : {Transform1D::Idct, Transform1D::Idxst})
    for (int n : kSizes)
      for (int batch : kBatches) check_case<TypeParam>(Backend::Cuda, Memory::Device, kind, DctAlgorithm::NPoint, n, batch);
}

TYPED_TEST(Dct1d, CudaExecuteHostInPlaceAndLargeShapes) {
  EFIELD_REQUIRE_GPU();
  for (auto kind : {Transform1D::Dct, Transform1D::Idct, Transform1D::Idxst})
    for (int n : {1, 6, 17, 255}) {
      check_case<TypeParam>(Backend::Cuda, Memory::HostThroughExecuteHost, kind, DctAlgorithm::NPoint, n, 3, false);
      check_case<TypeParam>(Backend::Cuda, Memory::HostThroughExecuteHost, kind, DctAlgorithm::NPoint, n, 3, true);
      check_case<TypeParam>(Backend::Cuda, Memory::Device, kind, DctAlgorithm::NPoint, n, 3, true);
    }
  for (auto algorithm : kAlgorithms) {
    check_case<TypeParam>(Backend::Cuda, Memory::Device, Transform1D::Dct, algorithm, 31, 2, true);
    check_case<TypeParam>(Backend::Cuda, Memory::Device, Transform1D::Dct, algorithm, 4096, 2);
  }
  // More rows than grid.y allows (65535): the kernels loop over the batch.
  check_case<TypeParam>(Backend::Cuda, Memory::Device, Transform1D::Dct, DctAlgorithm::NPoint, 3, 70000);
  check_case<TypeParam>(Backend::Cuda, Memory::Device, Transform1D::Dct, DctAlgorithm::FourN, 2, 70000);
  check_case<TypeParam>(Backend::Cuda, Memory::Device, Transform1D::Idxst, DctAlgorithm::NPoint, 5, 70000);
}

TYPED_TEST(Dct1d, CpuAndCudaAgree) {
  EFIELD_REQUIRE_GPU();
  using T = TypeParam;
  for (auto kind : {Transform1D::Dct, Transform1D::Idct, Transform1D::Idxst})
    for (int n : {7, 64, 1000}) {
      const auto seed = et::next_seed();
      SCOPED_TRACE(std::string(name(kind)) + " n=" + std::to_string(n) + " seed=" + std::to_string(seed));
      const auto x = et::random_vector<T>(static_cast<size_t>(n) * 5, seed);
      Plan1D<T> cpu(kind, n, 5, DctAlgorithm::NPoint, on(Backend::Cpu));
      Plan1D<T> gpu(kind, n, 5, DctAlgorithm::NPoint, on(Backend::Cuda));
      const auto a = run(cpu, x, Memory::Host, false);
      const auto b = run(gpu, x, Memory::HostThroughExecuteHost, false);
      EXPECT_LE(et::relative_l2(b, et::to_double(a)), sizeof(T) == 4 ? 1e-5 : 1e-13);
    }
}

TYPED_TEST(Dct1d, CudaRoundTripIsNTimesInput) {
  EFIELD_REQUIRE_GPU();
  using T = TypeParam;
  for (int n : kSizes) {
    const auto seed = et::next_seed();
    SCOPED_TRACE("n=" + std::to_string(n) + " seed=" + std::to_string(seed));
    const auto x = et::random_vector<T>(static_cast<size_t>(n) * 3, seed);
    Plan1D<T> forward(Transform1D::Dct, n, 3, DctAlgorithm::NPoint, on(Backend::Cuda));
    Plan1D<T> inverse(Transform1D::Idct, n, 3, DctAlgorithm::NPoint, on(Backend::Cuda));
    et::DeviceArray<T> d(x);
    forward.execute(d.get(), d.get());
    inverse.execute(d.get(), d.get());
    const auto y = d.download();
    std::vector<double> nx(x.size());
    for (size_t i = 0; i < x.size(); ++i) nx[i] = static_cast<double>(n) * x[i];
    EXPECT_LE(et::relative_l2(y, nx), et::tolerance<T>());
  }
}

TYPED_TEST(Dct1d, CudaZeroBelowMatchesCpu) {
  EFIELD_REQUIRE_GPU();
  using T = TypeParam;
  const auto seed = et::next_seed();
  SCOPED_TRACE("seed=" + std::to_string(seed));
  const auto x = et::random_vector<T>(64 * 4, seed);
  PlanOptions o = on(Backend::Cuda);
  o.zero_below = 2.0;
  for (auto algorithm : kAlgorithms) {
    Plan1D<T> plan(Transform1D::Dct, 64, 4, algorithm, o);
    const auto y = run(plan, x, Memory::Device, false);
    const auto ref = et::dense_1d(Transform1D::Dct, et::to_double(x), 64, 4);
    for (size_t i = 0; i < ref.size(); ++i) {
      if (std::abs(ref[i]) < 1.99) EXPECT_EQ(y[i], T(0)) << name(algorithm) << " i=" << i;
      if (std::abs(ref[i]) > 2.01) EXPECT_NEAR(y[i], ref[i], 1e-4) << name(algorithm) << " i=" << i;
    }
  }
}

TEST(Dct1dGpu, WrongMemoryKindRaises) {
  EFIELD_REQUIRE_GPU();
  Plan1D<float> gpu(Transform1D::Dct, 16, 1, DctAlgorithm::NPoint, on(Backend::Cuda));
  std::vector<float> host(16, 1.0f);
  et::DeviceArray<float> dev(host);
  expect_error_naming([&] { gpu.execute(host.data(), dev.get()); }, "device pointers");
  expect_error_naming([&] { gpu.execute_host(dev.get(), host.data()); }, "host memory");
  Plan1D<float> cpu(Transform1D::Dct, 16, 1, DctAlgorithm::NPoint, on(Backend::Cpu));
  expect_error_naming([&] { cpu.execute(dev.get(), host.data()); }, "CPU backend");
}

#if EFIELD_HAS_CUDA
// The plan enqueues only kernels and cuFFT calls on the stream, so it can be captured into a
// CUDA graph once and replayed on new data in the same buffers.
TYPED_TEST(Dct1d, CudaGraphCaptureAndReplay) {
  EFIELD_REQUIRE_GPU();
  using T = TypeParam;
  for (auto kind : {Transform1D::Dct, Transform1D::Idct, Transform1D::Idxst}) {
    for (auto algorithm : kAlgorithms) {
      if (kind != Transform1D::Dct && algorithm != DctAlgorithm::NPoint) continue;
      const int n = 100, batch = 4;
      SCOPED_TRACE(std::string(name(kind)) + " " + name(algorithm));
      Plan1D<T> plan(kind, n, batch, algorithm, on(Backend::Cuda));
      et::DeviceArray<T> din(static_cast<size_t>(n) * batch), dout(static_cast<size_t>(n) * batch);
      cudaStream_t stream;
      ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
      cudaGraph_t graph;
      ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
      plan.execute(din.get(), dout.get(), stream);
      ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
      cudaGraphExec_t exec;
      ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
      for (int replay = 0; replay < 3; ++replay) {
        const auto seed = et::next_seed();
        const auto x = et::random_vector<T>(din.size(), seed);
        din.upload(x);
        dout.upload(et::poisoned<T>(dout.size()));
        ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        const auto ref = et::dense_1d(kind, et::to_double(x), n, batch);
        EXPECT_LE(et::relative_l2(dout.download(), ref), et::tolerance<T>()) << "replay " << replay << " seed " << seed;
      }
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
      cudaStreamDestroy(stream);
    }
  }
}
#endif

}  // namespace
