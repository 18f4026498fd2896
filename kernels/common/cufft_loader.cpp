// cuFFT, loaded at the library's first cuFFT call: libefield does not link libcufft, so a CUDA
// build loads (and runs on the CPU) where cuFFT is not installed. This file defines the cuFFT
// entry points the library calls, as hidden symbols (visible inside libefield only, never
// interposing on a cuFFT that PyTorch or the placer loaded); each one loads the versioned cuFFT
// once (dlopen, through the loader's usual search: LD_LIBRARY_PATH, libefield's run path, the
// system's cache) and calls the real function.
//
// A cuFFT function the library starts to use needs one line in EFIELD_CUFFT_ENTRY_POINTS and one
// forwarding definition below; libefield links with --no-undefined, so a missing one fails the
// link instead of the first run.

// Before any CUDA header: cufft.h declares its functions with CUFFTAPI.
#define CUFFTAPI __attribute__((visibility("hidden")))
#include <cufft.h>
#include <dlfcn.h>

#include <string>

#include "common/cufft_loader.hpp"
#include "efield/error.hpp"

namespace efield::detail {
namespace {

#define EFIELD_CUFFT_ENTRY_POINTS(X)                                                               \
  X(cufftCreate) X(cufftDestroy) X(cufftSetStream) X(cufftMakePlanMany) X(cufftMakePlanMany64)     \
  X(cufftExecC2C) X(cufftExecR2C) X(cufftExecC2R) X(cufftExecZ2Z) X(cufftExecD2Z) X(cufftExecZ2D)

struct CufftEntryPoints {
#define EFIELD_CUFFT_POINTER(name) decltype(&::name) name = nullptr;
  EFIELD_CUFFT_ENTRY_POINTS(EFIELD_CUFFT_POINTER)
#undef EFIELD_CUFFT_POINTER
  std::string failure;  // empty once every entry point is found
};

CufftEntryPoints load() {
  CufftEntryPoints table;
  const std::string file = cufft_library_name();
  void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);  // kept open for the process
  if (library == nullptr) {
    const char* why = dlerror();
    table.failure = "the CUDA backend needs cuFFT (" + file + "), which could not be loaded: " +
                    (why != nullptr ? why : "unknown reason") +
                    " (install cuFFT, or add its folder to LD_LIBRARY_PATH)";
    return table;
  }
#define EFIELD_CUFFT_RESOLVE(name)                                                            \
  table.name = reinterpret_cast<decltype(table.name)>(dlsym(library, #name));                 \
  if (table.name == nullptr && table.failure.empty())                                         \
    table.failure = "the CUDA backend loaded " + file + " but it has no " #name " (a cuFFT " \
                    "older than the cufft.h efield was compiled against?)";
  EFIELD_CUFFT_ENTRY_POINTS(EFIELD_CUFFT_RESOLVE)
#undef EFIELD_CUFFT_RESOLVE
  return table;
}

const CufftEntryPoints& entry_points() {
  static const CufftEntryPoints table = load();
  if (!table.failure.empty()) throw Error(table.failure);
  return table;
}

}  // namespace

std::string cufft_library_name() { return "libcufft.so." + std::to_string(CUFFT_VER_MAJOR); }

void require_cufft() { entry_points(); }

}  // namespace efield::detail

using efield::detail::entry_points;

extern "C" {

cufftResult cufftCreate(cufftHandle* handle) { return entry_points().cufftCreate(handle); }
cufftResult cufftDestroy(cufftHandle plan) { return entry_points().cufftDestroy(plan); }
cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream) {
  return entry_points().cufftSetStream(plan, stream);
}
cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int* n, int* inembed, int istride, int idist,
                              int* onembed, int ostride, int odist, cufftType type, int batch,
                              size_t* work_size) {
  return entry_points().cufftMakePlanMany(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type,
                                          batch, work_size);
}
cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int* n, long long int* inembed,
                                long long int istride, long long int idist, long long int* onembed,
                                long long int ostride, long long int odist, cufftType type, long long int batch,
                                size_t* work_size) {
  return entry_points().cufftMakePlanMany64(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type,
                                            batch, work_size);
}
cufftResult cufftExecC2C(cufftHandle plan, cufftComplex* in, cufftComplex* out, int direction) {
  return entry_points().cufftExecC2C(plan, in, out, direction);
}
cufftResult cufftExecR2C(cufftHandle plan, cufftReal* in, cufftComplex* out) {
  return entry_points().cufftExecR2C(plan, in, out);
}
cufftResult cufftExecC2R(cufftHandle plan, cufftComplex* in, cufftReal* out) {
  return entry_points().cufftExecC2R(plan, in, out);
}
cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleComplex* out, int direction) {
  return entry_points().cufftExecZ2Z(plan, in, out, direction);
}
cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal* in, cufftDoubleComplex* out) {
  return entry_points().cufftExecD2Z(plan, in, out);
}
cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleReal* out) {
  return entry_points().cufftExecZ2D(plan, in, out);
}

}  // extern "C"
