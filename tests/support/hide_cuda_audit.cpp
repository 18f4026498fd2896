// An LD_AUDIT library (glibc's rtld-audit interface, rtld-audit(7)) that hides the CUDA libraries
// from the dynamic loader: every search for libcuda (the driver), libcudart or libcufft fails, as
// on a machine where they are not installed. The cuda_hidden_* tests (tests/CMakeLists.txt) and
// tests/python/test_cuda_hidden.py run efield's CPU tests under it:
//   LD_AUDIT=<build>/tests/libefield_hide_cuda.so ./test_x
#include <link.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace {

bool is_cuda_library(const char* path) {
  const char* slash = std::strrchr(path, '/');
  const char* file = slash != nullptr ? slash + 1 : path;
  for (const char* prefix : {"libcuda.", "libcudart.", "libcufft."})
    if (std::strncmp(file, prefix, std::strlen(prefix)) == 0) return true;
  return false;
}

}  // namespace

extern "C" {

unsigned int la_version(unsigned int) { return LAV_CURRENT; }

// Called for the name asked for (LA_SER_ORIG) and for each path tried; nullptr skips that one.
char* la_objsearch(const char* name, std::uintptr_t*, unsigned int) {
  return is_cuda_library(name) ? nullptr : const_cast<char*>(name);
}

}  // extern "C"
