#pragma once
// Internal: cuFFT is loaded at its first use (cufft_loader.cpp), not when libefield is loaded, so
// that a CUDA build works on machines without cuFFT as long as no CUDA plan is made.
#include <string>

namespace efield::detail {

// The versioned file name the library loads, e.g. "libcufft.so.12" (the major version of the
// cufft.h it was compiled against).
std::string cufft_library_name();

// Loads cuFFT now if it is not loaded yet; throws efield::Error naming the library and the
// loader's reason when it cannot be loaded. Every cuFFT call of the library does this first.
void require_cufft();

}  // namespace efield::detail
