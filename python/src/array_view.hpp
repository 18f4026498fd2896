#pragma once
// What the extension needs to know of a caller's array, read without copying from whichever
// protocol the array speaks: __cuda_array_interface__ (CuPy, Numba, PyTorch CUDA tensors),
// __array_interface__ (NumPy) or DLPack (__dlpack__ / __dlpack_device__: PyTorch CPU tensors,
// JAX, ...). The view points into the caller's memory; for DLPack it also owns the exported
// tensor until it is destroyed (destroy it with the GIL held).
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "efield/device.hpp"

namespace efield::python {

enum class DType { Float32, Float64, Other };

struct ArrayView {
  void* data = nullptr;
  std::vector<std::int64_t> shape;
  DType dtype = DType::Other;
  std::string dtype_name;  // "float32", "int64", ... for messages
  bool on_cuda = false;
  int device = -1;  // CUDA device ordinal; -1 for host memory
  bool readonly = false;
  bool contiguous = true;  // C order (row-major), dimensions of extent 1 ignored
  // __cuda_array_interface__ v3's stream: work on the data must be ordered after this stream.
  bool has_producer_stream = false;
  Stream producer_stream = nullptr;
  std::shared_ptr<void> owner;  // keeps a DLPack export alive

  std::int64_t size() const;
  std::string shape_string() const;  // "(3, 4)"
  std::string where() const;         // "cpu" or "cuda:1"
};

// Reads `obj` through the first protocol it speaks (CUDA array interface, array interface,
// DLPack). `name` labels errors ("x", "out"). `consumer_stream` is the stream the caller will use
// (passed to __dlpack__ so that the producer orders its work before it).
ArrayView view_array(pybind11::handle obj, const char* name, std::uintptr_t consumer_stream);

// Checks with errors that name the array and the problem.
void require_float(const ArrayView& view, const char* name, DType expected);
void require_contiguous(const ArrayView& view, const char* name);
void require_writable(const ArrayView& view, const char* name);
// device: -1 for host memory, else the CUDA ordinal.
void require_device(const ArrayView& view, const char* name, int device);

const char* to_string(DType dtype);

}  // namespace efield::python
