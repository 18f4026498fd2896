#pragma once
// DLPack's C header: Debian's libdlpack-dev (dlpack/dlpack.h), else the copy PyTorch ships
// (torch/include/ATen/dlpack.h); cmake/EfieldPython.cmake puts one of them on the include path.
// Only the unversioned DLManagedTensor is used: every producer exports it from a plain
// __dlpack__() call.
#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#else
#include <ATen/dlpack.h>
#endif
