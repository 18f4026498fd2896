#pragma once
// Internal: how many host threads copy a CUDA system's pageable host arrays to and from its
// page-locked staging (kernels/electrostatics/host_arrays.cuh). Not part of the API (the library
// reads no environment for it): bench_placement_loop sets it to time thread counts side by side.
namespace efield::detail {

// Several: one thread's memcpy into page-locked memory falls far short of what the copy engine
// moves over the bus (bench_ispd/results/electrostatics.md, "The placement loop").
constexpr int kHostCopyThreads = 4;

// Systems constructed after the call use `threads` (0: kHostCopyThreads), capped by the hardware's
// threads; returns the setting before.
int set_host_copy_threads(int threads);
int host_copy_threads();

}  // namespace efield::detail
