#pragma once
// Internal: the CUDA pipeline's path for host arrays (a CPU-side placer): compact device copies of
// the positions and the gradient (fillers right after the movable cells), the transfers between
// them and the caller's memory (host_arrays.cuh), and the device-side check for NaN and
// infinities (host positions are validated; a device pass costs microseconds, a host pass over the
// caller's arrays a good part of the bus time). The pipeline runs on the copies writing
// weight * g; accumulating adds it on the host.
#include <algorithm>
#include <cstdint>

#include "common/cuda_check.cuh"
#include "electrostatics/backend.hpp"
#include "electrostatics/cell_table.cuh"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/host_arrays.cuh"

namespace efield::detail {

template <typename T>
class HostArrayPath {
 public:
  HostArrayPath() = default;
  explicit HostArrayPath(const ElectrostaticDesign& d)
      : nm_(d.num_movable()), nc_(d.num_cells()), filler_offset_(d.options.filler_offset),
        zero_gap_(d.options.zero_gap_gradient) {
    dx_ = EsDeviceArray<T>(nc_);
    dy_ = EsDeviceArray<T>(nc_);
    dgx_ = EsDeviceArray<T>(nc_);
    dgy_ = EsDeviceArray<T>(nc_);
    arrays_ = HostArrays<T>(d.num_movable(), d.num_fillers(), d.options.filler_offset);
    nonfinite_ = EsPinnedArray<int>(1);  // mapped, like the finalize stage's results
    nonfinite_.get()[0] = 0;
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&run_done_, cudaEventDisableTiming));
  }
  ~HostArrayPath() {
    if (run_done_) cudaEventDestroy(run_done_);
  }
  HostArrayPath(const HostArrayPath&) = delete;
  HostArrayPath& operator=(const HostArrayPath&) = delete;

  // The device copies as the stages read and write them.
  CellArrays<T> device_arrays() const {
    CellArrays<T> a;
    a.x = dx_.get();
    a.y = dy_.get();
    a.grad_x = dgx_.get();
    a.grad_y = dgy_.get();
    a.filler_offset = nm_;
    return a;
  }

  // Enqueues the caller's positions into the device copies (pageable ones are read during the
  // call) and clears the non-finite flag (nothing of ours runs now: the previous evaluate waited
  // for its end).
  void upload(const T* x, const T* y, cudaStream_t stream) {
    nonfinite_.get()[0] = 0;
    arrays_.upload(x, y, dx_.get(), dy_.get(), stream);
  }
  // The check of the uploaded copies, first in each run's graph.
  void enqueue_check(cudaStream_t stream) const {
    launch_flag_nonfinite(dx_.get(), dy_.get(), nc_, nonfinite_.get(), stream);
  }
  // After a run was enqueued: enqueues the gradient's way back (before the host learns whether
  // the run must be repeated or the positions held a NaN: the usual evaluate waits once), then
  // waits for the run itself.
  void download_after_run(T* gx, T* gy, bool accumulate, cudaStream_t stream) {
    EFIELD_CUDA_CHECK(cudaEventRecord(run_done_, stream));
    arrays_.enqueue_download(dgx_.get(), dgy_.get(), gx, gy, accumulate, stream);
    EFIELD_CUDA_CHECK(cudaEventSynchronize(run_done_));
  }
  // Whether the latest run's positions held a NaN or an infinity (valid after download_after_run).
  bool nonfinite() const { return nonfinite_.get()[0] != 0; }
  // Writes (or adds) the latest download into the caller's arrays once it arrived, and zeroes the
  // gap between movable cells and fillers on request (the device copies have none).
  void finish(T* gx, T* gy, bool accumulate, cudaStream_t stream) {
    arrays_.finish_download(gx, gy, accumulate, stream);
    if (zero_gap_ && !accumulate && filler_offset_ > nm_) {
      std::fill(gx + nm_, gx + filler_offset_, T(0));
      std::fill(gy + nm_, gy + filler_offset_, T(0));
    }
  }

 private:
  std::int64_t nm_ = 0, nc_ = 0, filler_offset_ = 0;
  bool zero_gap_ = false;
  EsDeviceArray<T> dx_, dy_, dgx_, dgy_;  // the device copies (compact)
  HostArrays<T> arrays_;
  EsPinnedArray<int> nonfinite_;  // [1] 1 when a position was NaN or infinite
  cudaEvent_t run_done_ = nullptr;  // the pipeline ran (the flags are valid)
};

}  // namespace efield::detail
