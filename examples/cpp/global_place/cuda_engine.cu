// The CUDA engine: every buffer lives in GPU memory, all work is enqueued on one stream (the
// ElectrostaticSystem's too), and each evaluation brings back only a handful of scalars.
//
// One evaluation: wirelength_nets (WA gradient per pin, HPWL per net) -> gather_cells (pin
// gradients summed per cell into grad) -> efield's evaluate_async adding lambda times the density
// gradient into grad -> precondition (scale, the two norms against v_k, g_k as per-block partial
// sums) -> finish_sums -> one copy of the sums to pinned host memory -> one stream
// synchronisation, then efield's wait_result for its scalars. Sums are in double with a fixed
// grid and a fixed order, so that a run repeats exactly.
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "engine.hpp"
#include "placer_math.hpp"

#define GP_CUDA_CHECK(call)                                                                                      \
  do {                                                                                                           \
    const cudaError_t gp_status_ = (call);                                                                       \
    if (gp_status_ != cudaSuccess)                                                                               \
      throw efield::Error(std::string("global_place: ") + #call + " failed: " + cudaGetErrorString(gp_status_)); \
  } while (0)

namespace global_place {
namespace {

constexpr int kThreads = 256;
constexpr int kSumBlocks = 160;  // blocks of every reducing kernel: a fixed grid, a fixed sum order

int blocks_for(long long count) {
  const long long b = (count + kThreads - 1) / kThreads;
  return static_cast<int>(b < 1 ? 1 : (b > 65535 ? 65535 : b));
}

// An owning device array.
template <class X>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t n) : n_(n) {
    if (n > 0) GP_CUDA_CHECK(cudaMalloc(&p_, n * sizeof(X)));
  }
  template <class Y>
  explicit DeviceArray(const std::vector<Y>& host) : DeviceArray(host.size()) {
    const std::vector<X> converted(host.begin(), host.end());
    if (n_ > 0) GP_CUDA_CHECK(cudaMemcpy(p_, converted.data(), n_ * sizeof(X), cudaMemcpyHostToDevice));
  }
  ~DeviceArray() {
    if (p_) cudaFree(p_);
  }
  DeviceArray(DeviceArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p_, o.p_), std::swap(n_, o.n_);
    return *this;
  }
  X* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  X* p_ = nullptr;
  std::size_t n_ = 0;
};

// Sums v over the block into slot blockIdx.x of out (thread 0 writes).
__device__ void block_sum(double v, double* out) {
  __shared__ double s[kThreads];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

template <class T>
__global__ void wirelength_nets(int nets, const int* net_start, const int* pin_cell, const T* pos, int n,
                                const T* pin_dx, const T* pin_dy, const T* weight, T inv_gamma, int max_degree,
                                T* pin_gx, T* pin_gy, double* net_hpwl) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < nets; e += gridDim.x * blockDim.x) {
    const int b = net_start[e], end = net_start[e + 1];
    net_hpwl[e] = wa_net_axis(b, end, pin_cell, pos, pin_dx, weight[e], inv_gamma, max_degree, pin_gx) +
                  wa_net_axis(b, end, pin_cell, pos + n, pin_dy, weight[e], inv_gamma, max_degree, pin_gy);
  }
}

template <class T>
__global__ void gather_cells(int n, const int* cell_pin_start, const int* cell_pins, const T* pin_gx, const T* pin_gy,
                             T* grad) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    T gx = 0, gy = 0;
    for (int q = cell_pin_start[i]; q < cell_pin_start[i + 1]; ++q) {
      gx += pin_gx[cell_pins[q]];
      gy += pin_gy[cell_pins[q]];
    }
    grad[i] = gx, grad[n + i] = gy;
  }
}

// Per-block partial sums of values[0, count) into partial[0, kSumBlocks).
__global__ void sum_values(long long count, const double* values, double* partial) {
  double s = 0;
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<long long>(gridDim.x) * blockDim.x)
    s += values[j];
  block_sum(s, partial);
}

// grad /= max(1, pins + lambda * area) per cell; with v_k and g_k given, partial sums of
// |pos - v_k|^2 and |grad - g_k|^2 into partial[0..) and partial[kSumBlocks..).
template <class T>
__global__ void precondition(int n, const double* pins, const double* area, double lambda, T* grad, const T* pos,
                             const T* v_k, const T* g_k, double* partial) {
  double dv = 0, dg = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const T scale = static_cast<T>(precondition_factor(pins[i], lambda, area[i]));
    for (int j = i; j < 2 * n; j += n) {
      const T g = grad[j] * scale;
      grad[j] = g;
      if (v_k) {
        const double a = static_cast<double>(pos[j]) - v_k[j], b = static_cast<double>(g) - g_k[j];
        dv += a * a, dg += b * b;
      }
    }
  }
  if (v_k) {
    block_sum(dv, partial);
    __syncthreads();
    block_sum(dg, partial + kSumBlocks);
  }
}

// Per-block partial sums of |a| over `count` values.
template <class T>
__global__ void l1_norm(long long count, const T* a, double* partial) {
  double s = 0;
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<long long>(gridDim.x) * blockDim.x)
    s += fabs(static_cast<double>(a[j]));
  block_sum(s, partial);
}

// out[k] = sum of partial[k * kSumBlocks + (0 .. kSumBlocks)]; one block per group k.
__global__ void finish_sums(const double* partial, double* out) {
  double s = 0;
  for (int j = threadIdx.x; j < kSumBlocks; j += blockDim.x) s += partial[blockIdx.x * kSumBlocks + j];
  block_sum(s, out);
}

template <class T>
__global__ void gradient_step(long long count, const T* v_k, const T* g_k, T step, T* v) {
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<long long>(gridDim.x) * blockDim.x)
    v[j] = v_k[j] - step * g_k[j];
}

template <class T>
__global__ void nesterov_step(long long count, const T* v_k, const T* g_k, const T* u_k, T alpha, T coef, const T* lo,
                              const T* hi, T* u, T* v) {
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<long long>(gridDim.x) * blockDim.x)
    nesterov_coordinate(v_k[j], g_k[j], u_k[j], alpha, coef, lo[j], hi[j], &u[j], &v[j]);
}

// Elapsed milliseconds between two recorded events, once both completed.
float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  GP_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

template <class T>
class CudaEngine final : public Engine {
 public:
  CudaEngine(const PlacementProblem& p, const EngineOptions& o)
      : n_(p.num_cells()),
        nets_(p.num_nets()),
        pins_count_(p.num_pins()),
        max_degree_(o.max_net_degree),
        net_start_(p.net_pin_start),
        pin_cell_(p.pin_cell),
        cell_pin_start_(p.cell_pin_start),
        cell_pins_(p.cell_pins),
        net_weight_(p.net_weight),
        pin_dx_(p.pin_dx),
        pin_dy_(p.pin_dy) {
    GP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t* e : {&e0_, &e1_, &e2_, &e3_}) GP_CUDA_CHECK(cudaEventCreate(e));
    GP_CUDA_CHECK(cudaMallocHost(&host_sums_, 4 * sizeof(double)));
    const std::size_t m = 2 * static_cast<std::size_t>(n_);
    for (DeviceArray<T>* b : {&v_k_, &g_k_, &u_k_, &v_, &g_, &u_}) *b = DeviceArray<T>(m);
    pin_grad_ = DeviceArray<T>(2 * static_cast<std::size_t>(pins_count_));
    net_hpwl_ = DeviceArray<double>(static_cast<std::size_t>(nets_));
    partial_ = DeviceArray<double>(3 * kSumBlocks);
    sums_ = DeviceArray<double>(4);
    std::vector<double> pins(n_), area(n_), lo(m), hi(m);
    for (int i = 0; i < n_; ++i) {
      pins[i] = p.cell_pin_start[i + 1] - p.cell_pin_start[i];
      area[i] = p.width[i] * p.height[i];
      lo[i] = p.region.xl, hi[i] = p.region.xh - p.width[i];
      lo[n_ + i] = p.region.yl, hi[n_ + i] = p.region.yh - p.height[i];
    }
    pins_ = DeviceArray<double>(pins), area_ = DeviceArray<double>(area);
    lo_ = DeviceArray<T>(lo), hi_ = DeviceArray<T>(hi);

    efield::ElectrostaticOptions eo = density_options(p, o.precision, efield::Backend::Cuda);
    eo.stream = stream_;
    system_ = std::make_unique<efield::ElectrostaticSystem>(eo, p.movable, p.fillers, p.fixed);
  }

  ~CudaEngine() override {
    system_.reset();
    cudaStreamSynchronize(stream_);
    cudaFreeHost(host_sums_);
    for (cudaEvent_t e : {e0_, e1_, e2_, e3_}) cudaEventDestroy(e);
    cudaStreamDestroy(stream_);
  }

  std::string description() const override {
    cudaDeviceProp prop{};
    int device = 0;
    cudaGetDevice(&device);
    cudaGetDeviceProperties(&prop, device);
    return std::string("cuda (") + prop.name + ", " + (sizeof(T) == 4 ? "float" : "double") + ")";
  }

  void set_positions(const std::vector<double>& pos) override {
    const std::vector<T> host(pos.begin(), pos.end());
    GP_CUDA_CHECK(cudaMemcpyAsync(v_k_.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream_));
    GP_CUDA_CHECK(cudaMemcpyAsync(u_k_.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream_));
    GP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  std::vector<double> positions() override {
    std::vector<T> host(v_k_.size());
    GP_CUDA_CHECK(cudaMemcpyAsync(host.data(), v_k_.get(), host.size() * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    GP_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return std::vector<double>(host.begin(), host.end());
  }

  GradientNorms gradient_norms(double gamma) override {
    system_->evaluate(v_k_.get(), v_k_.get() + n_, g_.get(), g_.get() + n_);
    l1_norm<<<kSumBlocks, kThreads, 0, stream_>>>(2LL * n_, g_.get(), partial_.get() + kSumBlocks);
    wirelength(v_k_.get(), g_.get(), gamma);
    l1_norm<<<kSumBlocks, kThreads, 0, stream_>>>(2LL * n_, g_.get(), partial_.get());
    finish_sums<<<2, kThreads, 0, stream_>>>(partial_.get(), sums_.get());
    GP_CUDA_CHECK(cudaGetLastError());
    fetch_sums(2);
    return {host_sums_[0], host_sums_[1]};
  }

  Evaluation evaluate_current(double gamma, double lambda) override {
    return evaluate(v_k_.get(), g_k_.get(), gamma, lambda, false);
  }

  void trial_gradient_step(double step) override {
    gradient_step<<<blocks_for(2LL * n_), kThreads, 0, stream_>>>(2LL * n_, v_k_.get(), g_k_.get(),
                                                                  static_cast<T>(step), v_.get());
    GP_CUDA_CHECK(cudaGetLastError());
  }

  void trial_nesterov_step(double alpha, double coef) override {
    nesterov_step<<<blocks_for(2LL * n_), kThreads, 0, stream_>>>(2LL * n_, v_k_.get(), g_k_.get(), u_k_.get(),
                                                                  static_cast<T>(alpha), static_cast<T>(coef),
                                                                  lo_.get(), hi_.get(), u_.get(), v_.get());
    GP_CUDA_CHECK(cudaGetLastError());
  }

  Evaluation evaluate_trial(double gamma, double lambda) override {
    return evaluate(v_.get(), g_.get(), gamma, lambda, true);
  }

  // v and g keep their buffers (the ElectrostaticSystem's CUDA graph was captured with them and
  // is re-captured when the pointers change); their values are copied into v_k and g_k. u is
  // only ours: swapped.
  void accept_trial() override {
    const std::size_t bytes = v_.size() * sizeof(T);
    GP_CUDA_CHECK(cudaMemcpyAsync(v_k_.get(), v_.get(), bytes, cudaMemcpyDeviceToDevice, stream_));
    GP_CUDA_CHECK(cudaMemcpyAsync(g_k_.get(), g_.get(), bytes, cudaMemcpyDeviceToDevice, stream_));
    std::swap(u_k_, u_);
  }

 private:
  void wirelength(const T* pos, T* grad, double gamma) {
    T* pin_gx = pin_grad_.get();
    T* pin_gy = pin_grad_.get() + pins_count_;
    wirelength_nets<<<blocks_for(nets_), kThreads, 0, stream_>>>(
        nets_, net_start_.get(), pin_cell_.get(), pos, n_, pin_dx_.get(), pin_dy_.get(), net_weight_.get(),
        static_cast<T>(1 / gamma), max_degree_, pin_gx, pin_gy, net_hpwl_.get());
    gather_cells<<<blocks_for(n_), kThreads, 0, stream_>>>(n_, cell_pin_start_.get(), cell_pins_.get(), pin_gx, pin_gy,
                                                           grad);
    GP_CUDA_CHECK(cudaGetLastError());
  }

  // Copies the first `count` sums to pinned host memory and waits for the stream.
  void fetch_sums(int count) {
    GP_CUDA_CHECK(cudaMemcpyAsync(host_sums_, sums_.get(), count * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    GP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  Evaluation evaluate(const T* pos, T* grad, double gamma, double lambda, bool against_current) {
    Evaluation ev;
    GP_CUDA_CHECK(cudaEventRecord(e0_, stream_));
    wirelength(pos, grad, gamma);
    sum_values<<<kSumBlocks, kThreads, 0, stream_>>>(nets_, net_hpwl_.get(), partial_.get() + 2 * kSumBlocks);
    GP_CUDA_CHECK(cudaEventRecord(e1_, stream_));
    // grad += lambda * density gradient, enqueued on the same stream without a host sync.
    system_->evaluate_async(pos, pos + n_, grad, grad + n_, {lambda, true});
    GP_CUDA_CHECK(cudaEventRecord(e2_, stream_));
    precondition<<<kSumBlocks, kThreads, 0, stream_>>>(n_, pins_.get(), area_.get(), lambda, grad, pos,
                                                       against_current ? v_k_.get() : nullptr, g_k_.get(),
                                                       partial_.get());
    if (!against_current) GP_CUDA_CHECK(cudaMemsetAsync(partial_.get(), 0, 2 * kSumBlocks * sizeof(double), stream_));
    finish_sums<<<3, kThreads, 0, stream_>>>(partial_.get(), sums_.get());
    GP_CUDA_CHECK(cudaGetLastError());
    GP_CUDA_CHECK(cudaEventRecord(e3_, stream_));
    fetch_sums(3);
    const efield::EvaluateResult r = system_->wait_result();  // the stream is past it: no wait
    ev.step_norm2 = host_sums_[0], ev.gradient_change2 = host_sums_[1], ev.hpwl = host_sums_[2];
    ev.overflow = r.overflow, ev.max_density = r.max_density;
    ev.wirelength_ms = elapsed(e0_, e1_), ev.density_ms = elapsed(e1_, e2_), ev.other_ms = elapsed(e2_, e3_);
    return ev;
  }

  int n_, nets_, pins_count_, max_degree_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr, e2_ = nullptr, e3_ = nullptr;
  double* host_sums_ = nullptr;
  DeviceArray<int> net_start_, pin_cell_, cell_pin_start_, cell_pins_;
  DeviceArray<T> net_weight_, pin_dx_, pin_dy_;
  DeviceArray<double> pins_, area_, net_hpwl_, partial_, sums_;
  DeviceArray<T> v_k_, g_k_, u_k_, v_, g_, u_, lo_, hi_, pin_grad_;
  std::unique_ptr<efield::ElectrostaticSystem> system_;
};

}  // namespace

std::unique_ptr<Engine> make_cuda_engine(const PlacementProblem& problem, const EngineOptions& options) {
  if (options.precision == efield::Precision::Float) return std::make_unique<CudaEngine<float>>(problem, options);
  return std::make_unique<CudaEngine<double>>(problem, options);
}

}  // namespace global_place
