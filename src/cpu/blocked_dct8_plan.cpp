// efield::BlockedDct8: checks the request once, then dispatches each call to the CPU loop or the
// CUDA kernel (both run the block functions of src/math/loeffler8.hpp).
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "blocked_dct8/blocked_dct8_cuda.hpp"
#include "common/cpu_threads.hpp"
#include "common/device_scope.hpp"
#include "common/log.hpp"
#include "cpu/blocked_dct8_cpu.hpp"
#include "efield/blocked_dct8.hpp"
#include "efield/error.hpp"

namespace efield {

template <typename T>
struct BlockedDct8<T>::Impl : detail::DeviceBound {
  Transform2D kind;
  int rows;
  int cols;
  Backend backend;
  int cpu_threads;
  T param;  // Dct2: the zero_below threshold; Idct2: the output scale
  std::unique_ptr<detail::BlockedDct8Cuda<T>> cuda;

  bool inverse() const { return kind == Transform2D::Idct2; }
};

namespace {

std::string size_text(int rows, int cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

void check_request(Transform2D kind, int rows, int cols, const BlockedDct8Options& options) {
  if (kind != Transform2D::Dct2 && kind != Transform2D::Idct2)
    throw Error(std::string("BlockedDct8: kind must be Dct2 or Idct2, got ") + to_string(kind));
  if (rows <= 0 || cols <= 0 || rows % 8 != 0 || cols % 8 != 0)
    throw Error("BlockedDct8: rows and cols must be positive multiples of 8, got " + size_text(rows, cols) +
                " (pad the array, e.g. by repeating its last row/column)");
  if (!(options.zero_below >= 0) || !std::isfinite(options.zero_below))
    throw Error("BlockedDct8: zero_below must be finite and >= 0, got " + std::to_string(options.zero_below));
  if (!std::isfinite(options.inverse_scale))
    throw Error("BlockedDct8: inverse_scale must be finite, got " + std::to_string(options.inverse_scale));
  detail::check_cpu_threads(options.cpu_threads, "BlockedDct8");
}

// in == out is allowed (each block is read whole before it is written); a partial overlap is not.
template <typename T>
void check_pointers(const T* in, T* out, int rows, int cols) {
  if (!in || !out) throw Error("BlockedDct8::execute: null input or output pointer");
  const auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
  const std::uintptr_t bytes = sizeof(T) * static_cast<std::uintptr_t>(rows) * cols;
  if (a != b && a < b + bytes && b < a + bytes)
    throw Error("BlockedDct8::execute: input and output overlap without being the same array");
}

}  // namespace

template <typename T>
BlockedDct8<T>::BlockedDct8(Transform2D kind, int rows, int cols, const BlockedDct8Options& options) {
  check_request(kind, rows, cols, options);
  auto impl = std::make_unique<Impl>();
  impl->kind = kind;
  impl->rows = rows;
  impl->cols = cols;
  impl->backend = resolve_backend(options.backend);
  impl->cpu_threads = options.cpu_threads;
  impl->param = static_cast<T>(kind == Transform2D::Dct2 ? options.zero_below : options.inverse_scale);
  if (impl->backend == Backend::Cuda) {
    impl->cuda = std::make_unique<detail::BlockedDct8Cuda<T>>(rows, cols);
    impl->bind_to_current_device();
  }
  detail::log().debug("BlockedDct8 {} {}x{} on {}", to_string(kind), rows, cols, to_string(impl->backend));
  impl_ = std::move(impl);
}

template <typename T>
BlockedDct8<T>::~BlockedDct8() {
  detail::destroy_on_device(impl_);
}
template <typename T>
BlockedDct8<T>::BlockedDct8(BlockedDct8&&) noexcept = default;
template <typename T>
BlockedDct8<T>& BlockedDct8<T>::operator=(BlockedDct8&& other) noexcept {
  if (this != &other) {
    detail::destroy_on_device(impl_);
    impl_ = std::move(other.impl_);
  }
  return *this;
}

template <typename T>
void BlockedDct8<T>::execute(const T* in, T* out, Stream stream) {
  if (!impl_) throw Error("BlockedDct8::execute: the plan was moved from");
  Impl& p = *impl_;
  const detail::DeviceScope scope(p.device());
  check_pointers(in, out, p.rows, p.cols);
  if (p.backend == Backend::Cuda) {
    if (!is_device_pointer(in) || !is_device_pointer(out))
      throw Error("BlockedDct8::execute: the CUDA plan needs device pointers (use execute_host for host arrays)");
    p.cuda->run(p.inverse(), in, out, p.param, static_cast<void*>(stream));
    return;
  }
  if (is_device_pointer(in) || is_device_pointer(out))
    throw Error("BlockedDct8::execute: the CPU plan needs host pointers, got device memory");
  if (p.inverse()) {
    detail::blocked_dct8_inverse_cpu(in, out, p.rows, p.cols, p.param, p.cpu_threads);
  } else {
    detail::blocked_dct8_forward_cpu(in, out, p.rows, p.cols, p.param, p.cpu_threads);
  }
}

template <typename T>
void BlockedDct8<T>::execute_host(const T* in, T* out) {
  if (!impl_) throw Error("BlockedDct8::execute_host: the plan was moved from");
  Impl& p = *impl_;
  const detail::DeviceScope scope(p.device());
  check_pointers(in, out, p.rows, p.cols);
  if (p.backend == Backend::Cuda) {
    p.cuda->run_host(p.inverse(), in, out, p.param);
  } else {
    execute(in, out, nullptr);
  }
}

template <typename T>
Transform2D BlockedDct8<T>::kind() const noexcept { return impl_->kind; }
template <typename T>
int BlockedDct8<T>::rows() const noexcept { return impl_->rows; }
template <typename T>
int BlockedDct8<T>::cols() const noexcept { return impl_->cols; }
template <typename T>
Backend BlockedDct8<T>::backend() const noexcept { return impl_->backend; }

template class BlockedDct8<float>;
template class BlockedDct8<double>;

}  // namespace efield
