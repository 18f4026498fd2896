// ThreadPool (thread_pool.hpp): chunk claims by compare-and-swap, passive waiting.
#include "cpu/thread_pool.hpp"

#include <string>

#include "efield/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EFIELD_PAUSE() _mm_pause()
#else
#define EFIELD_PAUSE() std::this_thread::yield()
#endif

namespace efield::detail {
namespace {

constexpr std::uint64_t kField = (1u << 24) - 1;
// How long a thread looks for work (a worker) or for the end of a job (the caller) before it
// blocks: a few microseconds, enough to catch the next loop of the same evaluate without holding
// a core through an FFT.
constexpr int kSpins = 2000;

std::uint64_t pack(std::uint64_t generation, std::uint64_t count, std::uint64_t next) {
  return (generation & 0xffff) << 48 | (count & kField) << 24 | (next & kField);
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads < 1) throw Error("ThreadPool: " + std::to_string(threads) + " threads (need >= 1)");
  try {
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    for (int t = 1; t < threads; ++t) workers_.emplace_back([this, t] { worker(t); });
  } catch (const std::exception& e) {
    // The system (a memory or process limit) refused a thread: stop the ones started.
    const std::size_t started = workers_.size();
    stop_workers();
    throw Error("ThreadPool: could not start thread " + std::to_string(started + 2) + " of " +
                std::to_string(threads) + " (" + e.what() + "); use fewer cpu_threads");
  }
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::stop_workers() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void ThreadPool::run_chunk(std::int64_t k, int thread) {
  try {
    fn_(body_, k, thread);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_) error_ = std::current_exception();
  }
}

bool ThreadPool::work(int thread) {
  bool any = false;
  std::uint64_t c = claim_.load(std::memory_order_acquire);
  for (;;) {
    const std::uint64_t count = (c >> 24) & kField, next = c & kField;
    if (next >= count) return any;
    if (!claim_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    // The claim succeeded on this job's state: the job is not finished, so fn_ and body_ are its own.
    run_chunk(static_cast<std::int64_t>(next), thread);
    any = true;
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<std::int64_t>(count)) {
      // Tagged with the job: the caller may have seen done_ already and be on its next job.
      {
        std::lock_guard<std::mutex> lock(mutex_);
        finished_ = c >> 48;
      }
      finished_cv_.notify_one();
    }
    c = claim_.load(std::memory_order_acquire);
  }
}

void ThreadPool::worker(int thread) {
  for (;;) {
    // Work, and look briefly for the next job of the same evaluate before blocking.
    for (int spin = 0; spin < kSpins; ++spin) {
      if (work(thread)) spin = 0;
      EFIELD_PAUSE();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (stop_) return;
    const std::uint64_t seen = generation_;
    lock.unlock();
    if (work(thread)) continue;  // published between the spin and the lock
    lock.lock();
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
  }
}

void ThreadPool::run(std::int64_t chunks, Trampoline fn, void* body) {
  if (chunks <= 0) return;
  if (workers_.empty() || chunks == 1) {
    for (std::int64_t k = 0; k < chunks; ++k) fn(body, k, 0);
    return;
  }
  if (chunks > static_cast<std::int64_t>(kField)) throw Error("ThreadPool: more than 2^24 - 1 chunks in one loop");
  std::uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = fn;
    body_ = body;
    error_ = nullptr;
    done_.store(0, std::memory_order_relaxed);
    generation = ++generation_;
    claim_.store(pack(generation, static_cast<std::uint64_t>(chunks), 0), std::memory_order_release);
  }
  wake_.notify_all();
  work(0);
  // Wait for the chunks other threads hold: briefly spinning, then blocking.
  for (int spin = 0; spin < kSpins && done_.load(std::memory_order_acquire) < chunks; ++spin) EFIELD_PAUSE();
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_cv_.wait(lock, [&] {
      return finished_ == (generation & 0xffff) || done_.load(std::memory_order_acquire) >= chunks;
    });
    error = error_;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace efield::detail
