#pragma once
// Host position and gradient arrays of the CUDA electrostatic pipeline: how they reach the
// pipeline's compact device copies (movable cells, then fillers) and come back, at the speed of
// the bus.
//   - Page-locked caller arrays (cudaMallocHost, cudaHostRegister, efield::PinnedHostRange) are
//     copied by DMA straight from and to the caller's memory: no host copy at all (an
//     accumulating evaluate adds the gradient on the host, from the staging arrays).
//   - Pageable arrays go through the page-locked staging arrays in chunks: each chunk's DMA is
//     enqueued by the thread that copied it, as soon as it did, so that the copy engine moves
//     chunk k while host threads (efield's ThreadPool: passive waiting, for shared cores) copy
//     the next ones; the gradient comes back the same way, each chunk written (or added) as soon
//     as its DMA is done. Chunks are independent, so their order on the stream does not matter.
// Whether the caller's arrays are page-locked is asked once per set of pointers (and again after a
// PinnedHostRange came or went). Everything is made at construction; a call allocates nothing.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/device_scope.hpp"
#include "common/host_pinning.hpp"
#include "cpu/thread_pool.hpp"
#include "electrostatics/host_copy_threads.hpp"
#include "efield/device.hpp"
#include "electrostatics/es_buffers.cuh"

namespace efield::detail {

// flag[0] = 1 when x[i] or y[i] is NaN or infinite for some i < n (flag: page-locked, mapped).
template <typename T>
void launch_flag_nonfinite(const T* x, const T* y, std::int64_t n, int* flag, cudaStream_t stream);

// Bytes per chunk of a pageable array's trip through the staging: small enough that the first
// DMA starts early, the threads share the work evenly and the last host copy ends soon after the
// last DMA; large enough that the per-chunk API calls stay a small part of the time.
constexpr std::int64_t kHostChunkBytes = std::int64_t{256} << 10;

template <typename T>
class HostArrays {
 public:
  HostArrays() = default;
  HostArrays(std::int64_t num_movable, std::int64_t num_fillers, std::int64_t filler_offset)
      : nm_(num_movable), nc_(num_movable + num_fillers), shift_(filler_offset - num_movable),
        device_(current_cuda_device()) {
    chunk_ = std::max<std::int64_t>(1, kHostChunkBytes / static_cast<std::int64_t>(sizeof(T)));
    const std::int64_t chunks = (nc_ + chunk_ - 1) / chunk_;
    px_ = PinnedBuffer<T>(static_cast<std::size_t>(nc_));
    py_ = PinnedBuffer<T>(static_cast<std::size_t>(nc_));
    pgx_ = PinnedBuffer<T>(static_cast<std::size_t>(nc_));
    pgy_ = PinnedBuffer<T>(static_cast<std::size_t>(nc_));
    events_.assign(static_cast<std::size_t>(chunks), nullptr);
    for (cudaEvent_t& e : events_) EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    pool_ = std::make_unique<ThreadPool>(host_copy_threads());
  }
  ~HostArrays() {
    for (cudaEvent_t e : events_)
      if (e) cudaEventDestroy(e);
  }
  HostArrays(HostArrays&& o) noexcept { *this = std::move(o); }
  HostArrays& operator=(HostArrays&& o) noexcept {
    std::swap(nm_, o.nm_);
    std::swap(nc_, o.nc_);
    std::swap(shift_, o.shift_);
    std::swap(chunk_, o.chunk_);
    std::swap(device_, o.device_);
    std::swap(pool_, o.pool_);
    std::swap(px_, o.px_);
    std::swap(py_, o.py_);
    std::swap(pgx_, o.pgx_);
    std::swap(pgy_, o.pgy_);
    std::swap(events_, o.events_);
    return *this;
  }

  // Enqueues on `stream` the copies of the caller's positions into dx, dy (compact); pageable
  // arrays are read here, through the staging.
  void upload(const T* x, const T* y, T* dx, T* dy, cudaStream_t stream) {
    know(x, y);
    if (nc_ == 0) return;
    if (in_pinned_) {
      copy_whole(x, y, dx, dy, true, stream);
      return;
    }
    const std::int64_t chunks = num_chunks();
    pool_->for_chunks(2 * chunks, [&](std::int64_t job) {
      const DeviceScope scope(device_);  // the workers' current device is their own
      const bool is_x = job < chunks;
      const std::int64_t begin = (is_x ? job : job - chunks) * chunk_, end = std::min(nc_, begin + chunk_);
      const T* src = is_x ? x : y;
      T* staging = is_x ? px_.get() : py_.get();
      for_segments(begin, end, [&](std::int64_t c, std::int64_t i, std::int64_t n) {
        std::memcpy(staging + c, src + i, n * sizeof(T));
      });
      EFIELD_CUDA_CHECK(cudaMemcpyAsync((is_x ? dx : dy) + begin, staging + begin, (end - begin) * sizeof(T),
                                        cudaMemcpyHostToDevice, stream));
    });
  }

  // Enqueues on `stream` the copies of the gradient (compact dgx, dgy) back: straight into the
  // caller's page-locked arrays when writing, else into the staging, a chunk at a time.
  void enqueue_download(const T* dgx, const T* dgy, T* gx, T* gy, bool accumulate, cudaStream_t stream) {
    know_out(gx, gy);
    if (nc_ == 0) return;
    if (out_pinned_ && !accumulate) {
      copy_whole(dgx, dgy, gx, gy, false, stream);
      return;
    }
    for (std::int64_t k = 0; k < num_chunks(); ++k) {
      const std::int64_t begin = k * chunk_, bytes = (std::min(nc_, begin + chunk_) - begin) * sizeof(T);
      EFIELD_CUDA_CHECK(cudaMemcpyAsync(pgx_.get() + begin, dgx + begin, bytes, cudaMemcpyDeviceToHost, stream));
      EFIELD_CUDA_CHECK(cudaMemcpyAsync(pgy_.get() + begin, dgy + begin, bytes, cudaMemcpyDeviceToHost, stream));
      EFIELD_CUDA_CHECK(cudaEventRecord(events_[static_cast<std::size_t>(k)], stream));
    }
  }

  // Waits for the latest enqueue_download and writes (or adds) the gradient into the caller's
  // arrays; returns once they hold it.
  void finish_download(T* gx, T* gy, bool accumulate, cudaStream_t stream) {
    if (nc_ == 0) return;
    if (out_pinned_ && !accumulate) {
      EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream));
      return;
    }
    pool_->for_chunks(num_chunks(), [&](std::int64_t k) {
      EFIELD_CUDA_CHECK(cudaEventSynchronize(events_[static_cast<std::size_t>(k)]));
      const std::int64_t begin = k * chunk_, end = std::min(nc_, begin + chunk_);
      for_segments(begin, end, [&](std::int64_t c, std::int64_t i, std::int64_t n) {
        put(gx + i, pgx_.get() + c, n, accumulate);
        put(gy + i, pgy_.get() + c, n, accumulate);
      });
    });
  }

 private:
  std::int64_t num_chunks() const { return (nc_ + chunk_ - 1) / chunk_; }

  // Whether the caller's arrays are page-locked: their first and last entries read.
  bool pinned(const T* p) const {
    const T* last = p + (nc_ > nm_ ? nc_ - 1 + shift_ : nc_ - 1);
    return is_pinned_host_pointer(p) && is_pinned_host_pointer(last);
  }
  void know(const T* x, const T* y) {
    const std::uint64_t gen = host_pinning_generation();
    if (x == known_x_ && y == known_y_ && gen == in_generation_) return;
    in_pinned_ = nc_ > 0 && pinned(x) && pinned(y);
    known_x_ = x, known_y_ = y, in_generation_ = gen;
  }
  void know_out(const T* gx, const T* gy) {
    const std::uint64_t gen = host_pinning_generation();
    if (gx == known_gx_ && gy == known_gy_ && gen == out_generation_) return;
    out_pinned_ = nc_ > 0 && pinned(gx) && pinned(gy);
    known_gx_ = gx, known_gy_ = gy, out_generation_ = gen;
  }

  // Both arrays by DMA between the caller's page-locked memory and the compact device copies
  // (up: caller a, b -> device da, db; down: device a, b -> caller da, db).
  void copy_whole(const T* a, const T* b, T* da, T* db, bool up, cudaStream_t stream) const {
    for (int k = 0; k < 2; ++k) {
      const T* src = k == 0 ? a : b;
      T* dst = k == 0 ? da : db;
      for_segments(0, nc_, [&](std::int64_t c, std::int64_t i, std::int64_t n) {
        EFIELD_CUDA_CHECK(cudaMemcpyAsync(dst + (up ? c : i), src + (up ? i : c), n * sizeof(T),
                                          up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream));
      });
    }
  }

  // f(compact index, caller index, count) for the movable and filler parts of [begin, end).
  template <typename F>
  void for_segments(std::int64_t begin, std::int64_t end, F&& f) const {
    if (begin < nm_) f(begin, begin, std::min(end, nm_) - begin);
    const std::int64_t b = std::max(begin, nm_);
    if (b < end) f(b, b + shift_, end - b);
  }
  static void put(T* dst, const T* src, std::int64_t n, bool accumulate) {
    if (!accumulate) {
      std::memcpy(dst, src, n * sizeof(T));
      return;
    }
    for (std::int64_t k = 0; k < n; ++k) dst[k] += src[k];
  }

  std::int64_t nm_ = 0, nc_ = 0, shift_ = 0, chunk_ = 1;
  int device_ = 0;
  std::unique_ptr<ThreadPool> pool_;  // the host copies (host_copy_threads(), the caller included)
  PinnedBuffer<T> px_, py_, pgx_, pgy_;
  std::vector<cudaEvent_t> events_;  // [chunk]: that chunk of both gradients is in the staging
  const T *known_x_ = nullptr, *known_y_ = nullptr;
  const T *known_gx_ = nullptr, *known_gy_ = nullptr;
  std::uint64_t in_generation_ = ~std::uint64_t{0}, out_generation_ = ~std::uint64_t{0};
  bool in_pinned_ = false, out_pinned_ = false;
};

}  // namespace efield::detail
