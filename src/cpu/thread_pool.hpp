#pragma once
// Worker threads for the CPU electrostatic pipeline's loops, made for a machine whose cores are
// shared (other processes, a placer's own threads):
//   - waiting is passive: an idle worker spins only briefly, then blocks on a condition variable,
//     so it never holds a core that another process could use (OpenMP's default policy spins
//     for hundreds of microseconds at every barrier);
//   - work is handed out as chunks that the threads claim one at a time, so a worker the system
//     has descheduled delays a loop by at most the chunk it holds, and a worker that has not woken
//     up yet delays it not at all (the calling thread and the others take its share);
//   - the calling thread works too; with one thread nothing is started and loops run inline.
// Which thread runs a chunk is left to timing: callers make results independent of it (each
// chunk's work is fixed, results are combined in chunk order or with integer sums).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace efield::detail {

class ThreadPool {
 public:
  // `threads` >= 1 threads in all: the caller and threads - 1 workers. Throws efield::Error when
  // the system refuses to start a thread.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const noexcept { return static_cast<int>(workers_.size()) + 1; }

  // Runs body(k) once for every chunk k in [0, chunks) (chunks < 2^24) and returns when all have
  // run; an exception from a body is rethrown here (the other chunks still run).
  template <typename Body>
  void for_chunks(std::int64_t chunks, Body&& body) {
    run(chunks, [](void* b, std::int64_t k, int) { (*static_cast<std::remove_reference_t<Body>*>(b))(k); }, &body);
  }
  // The same with body(k, thread): thread in [0, threads()) is the thread running the chunk (0:
  // the caller), for per-thread scratch; which thread runs which chunk is left to timing.
  template <typename Body>
  void for_chunks_on_threads(std::int64_t chunks, Body&& body) {
    run(chunks, [](void* b, std::int64_t k, int t) { (*static_cast<std::remove_reference_t<Body>*>(b))(k, t); }, &body);
  }

  // body(begin, end) over [0, count) cut into chunks of `grain` items (the last one shorter).
  template <typename Body>
  void for_range(std::int64_t count, std::int64_t grain, Body&& body) {
    if (count <= 0) return;
    const std::int64_t chunks = (count + grain - 1) / grain;
    for_chunks(chunks, [&](std::int64_t k) { body(k * grain, k + 1 == chunks ? count : (k + 1) * grain); });
  }

 private:
  using Trampoline = void (*)(void*, std::int64_t, int);
  void run(std::int64_t chunks, Trampoline fn, void* body);
  void worker(int thread);
  void stop_workers() noexcept;
  // Claims and runs chunks of the job in `claim_` while any is left (as `thread`); false when none was.
  bool work(int thread);
  void run_chunk(std::int64_t k, int thread);

  // The job being handed out, packed so that one compare-and-swap claims a chunk of exactly
  // this job: generation (16 bits) | chunk count (24 bits) | next chunk (24 bits).
  std::atomic<std::uint64_t> claim_{0};
  std::atomic<std::int64_t> done_{0};  // chunks of the current job that have run
  Trampoline fn_ = nullptr;            // the current job (read only by a thread that holds a claim)
  void* body_ = nullptr;
  std::uint64_t generation_ = 0;       // jobs published (under mutex_)
  bool stop_ = false;
  std::uint64_t finished_ = 0;         // generation (16 bits) of the latest job whose last chunk ran (under mutex_)
  std::exception_ptr error_;           // the first exception of the current job (under mutex_)
  std::mutex mutex_;
  std::condition_variable wake_;       // workers: a job was published, or stop
  std::condition_variable finished_cv_;
  std::vector<std::thread> workers_;
};

}  // namespace efield::detail
