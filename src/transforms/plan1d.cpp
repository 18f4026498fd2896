// efield::Plan1D: argument checks and dispatch to the CPU or CUDA backend (plan1d_impl.hpp).
#include <climits>
#include <cmath>
#include <string>

#include "common/cpu_threads.hpp"
#include "common/log.hpp"
#include "efield/error.hpp"
#include "efield/transforms.hpp"
#include "math/dct1d.hpp"
#include "transforms/plan1d_impl.hpp"

namespace efield {
namespace detail {

const char* dct_algorithm_name(DctAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case DctAlgorithm::NPoint: return "NPoint";
    case DctAlgorithm::Mirrored2N: return "Mirrored2N";
    case DctAlgorithm::Padded2N: return "Padded2N";
    case DctAlgorithm::FourN: return "FourN";
  }
  return "unknown DctAlgorithm";
}

const char* transform1d_name(Transform1D kind) noexcept {
  switch (kind) {
    case Transform1D::Dct: return "Dct";
    case Transform1D::Idct: return "Idct";
    case Transform1D::Idxst: return "Idxst";
  }
  return "unknown Transform1D";
}

void validate_plan1d_spec(const Plan1DSpec& spec, const char* who) {
  const std::string w(who);
  const int kind = static_cast<int>(spec.kind);
  if (kind < 0 || kind > 2) throw Error(w + ": kind " + std::to_string(kind) + " is not a Transform1D");
  const int algorithm = static_cast<int>(spec.algorithm);
  if (algorithm < 0 || algorithm > 3)
    throw Error(w + ": algorithm " + std::to_string(algorithm) + " is not a DctAlgorithm");
  if (spec.n < 1) throw Error(w + ": n must be >= 1 (got " + std::to_string(spec.n) + ")");
  if (spec.batch < 1) throw Error(w + ": batch must be >= 1 (got " + std::to_string(spec.batch) + ")");
  if (spec.kind != Transform1D::Dct && spec.algorithm != DctAlgorithm::NPoint)
    throw Error(w + ": " + transform1d_name(spec.kind) + " is computed only by DctAlgorithm::NPoint (got " +
                dct_algorithm_name(spec.algorithm) + ")");
  // FFTW and cuFFT take the transform length as int; the kernels index a row with int.
  const long long length = dct_fft_length(algorithm, spec.n);
  if (length > INT_MAX / 2)
    throw Error(w + ": n = " + std::to_string(spec.n) + " is too large for the " +
                dct_algorithm_name(spec.algorithm) + " algorithm (FFT length " + std::to_string(length) + ")");
  const long long total = (length + 2) * static_cast<long long>(spec.batch);
  if (total > (1LL << 40))
    throw Error(w + ": n * batch = " + std::to_string(spec.n) + " * " + std::to_string(spec.batch) +
                " is too large");
  detail::check_cpu_threads(spec.cpu_threads, w);
  if (!std::isfinite(spec.zero_below) || spec.zero_below < 0)
    throw Error(w + ": zero_below must be finite and >= 0 (got " + std::to_string(spec.zero_below) + ")");
}

}  // namespace detail

namespace {

template <typename T>
void check_pointers(const T* in, T* out, Backend backend, const char* who) {
  if (in == nullptr) throw Error(std::string(who) + ": `in` is null");
  if (out == nullptr) throw Error(std::string(who) + ": `out` is null");
  if (backend == Backend::Cpu && (is_device_pointer(in) || is_device_pointer(out)))
    throw Error(std::string(who) + ": the plan runs on the CPU backend but `in` or `out` is CUDA device memory");
  if (backend == Backend::Cuda && !detail::both_device_pointers(in, out))
    throw Error(std::string(who) +
                ": the plan runs on the CUDA backend and needs device pointers (use execute_host for host memory)");
}

}  // namespace

template <typename T>
Plan1D<T>::Plan1D(Transform1D kind, int n, int batch, DctAlgorithm algorithm, const PlanOptions& options) {
  detail::Plan1DSpec spec;
  spec.kind = kind;
  spec.n = n;
  spec.batch = batch;
  spec.algorithm = algorithm;
  spec.cpu_threads = options.cpu_threads;
  spec.zero_below = options.zero_below;
  detail::validate_plan1d_spec(spec, "Plan1D");
  const Backend backend = resolve_backend(options.backend);
  impl_ = backend == Backend::Cuda ? detail::make_plan1d_cuda<T>(spec) : detail::make_plan1d_cpu<T>(spec);
  if (backend == Backend::Cuda) impl_->bind_to_current_device();
  detail::log().debug("Plan1D<{}>: {} n={} batch={} algorithm={} backend={}", sizeof(T) == 4 ? "float" : "double",
                      detail::transform1d_name(kind), n, batch, detail::dct_algorithm_name(algorithm),
                      to_string(backend));
}

template <typename T> Plan1D<T>::~Plan1D() { detail::destroy_on_device(impl_); }
template <typename T> Plan1D<T>::Plan1D(Plan1D&&) noexcept = default;
template <typename T> Plan1D<T>& Plan1D<T>::operator=(Plan1D&& other) noexcept {
  if (this != &other) {
    detail::destroy_on_device(impl_);
    impl_ = std::move(other.impl_);
  }
  return *this;
}

template <typename T>
void Plan1D<T>::execute(const T* in, T* out, Stream stream) {
  if (!impl_) throw Error("Plan1D::execute: the plan was moved from");
  check_pointers(in, out, impl_->backend(), "Plan1D::execute");
  const detail::DeviceScope scope(impl_->device());
  impl_->execute(in, out, stream);
}

template <typename T>
void Plan1D<T>::execute_host(const T* in, T* out) {
  if (!impl_) throw Error("Plan1D::execute_host: the plan was moved from");
  if (in == nullptr) throw Error("Plan1D::execute_host: `in` is null");
  if (out == nullptr) throw Error("Plan1D::execute_host: `out` is null");
  if (is_device_pointer(in) || is_device_pointer(out))
    throw Error("Plan1D::execute_host: `in` and `out` must be host memory (use execute for device pointers)");
  const detail::DeviceScope scope(impl_->device());
  impl_->execute_host(in, out);
}

template <typename T> Transform1D Plan1D<T>::kind() const noexcept { return impl_->spec().kind; }
template <typename T> DctAlgorithm Plan1D<T>::algorithm() const noexcept { return impl_->spec().algorithm; }
template <typename T> int Plan1D<T>::size() const noexcept { return impl_->spec().n; }
template <typename T> int Plan1D<T>::batch() const noexcept { return impl_->spec().batch; }
template <typename T> Backend Plan1D<T>::backend() const noexcept { return impl_->backend(); }

template class Plan1D<float>;
template class Plan1D<double>;

}  // namespace efield
