// The CPU pipeline's thread pool (src/cpu/thread_pool.hpp): every chunk runs exactly once on any
// thread count, exceptions come back to the caller, and many short loops in a row (the stages of
// an evaluate) neither deadlock nor lose work.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "cpu/thread_pool.hpp"

namespace efield::detail {
namespace {

TEST(ThreadPool, EveryChunkRunsOnce) {
  for (const int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (const std::int64_t chunks : {0, 1, 3, 1000}) {
      std::vector<std::atomic<int>> runs(static_cast<std::size_t>(chunks));
      pool.for_chunks(chunks, [&](std::int64_t k) { runs[static_cast<std::size_t>(k)]++; });
      for (std::int64_t k = 0; k < chunks; ++k) EXPECT_EQ(runs[k].load(), 1) << threads << " threads, chunk " << k;
    }
  }
}

TEST(ThreadPool, ThreadIndicesAreInRangeAndNeverShared) {
  // for_chunks_on_threads: thread t's scratch is used by one chunk at a time (the rasterize's map
  // copies rely on it), and t < threads().
  for (const int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> busy(static_cast<std::size_t>(threads));
    std::vector<std::atomic<int>> runs(2000);
    std::atomic<int> bad{0};
    pool.for_chunks_on_threads(2000, [&](std::int64_t k, int t) {
      if (t < 0 || t >= threads || busy[static_cast<std::size_t>(t)].fetch_add(1) != 0) ++bad;
      runs[static_cast<std::size_t>(k)]++;
      if (t >= 0 && t < threads) busy[static_cast<std::size_t>(t)]--;
    });
    EXPECT_EQ(bad.load(), 0) << threads << " threads";
    for (std::size_t k = 0; k < runs.size(); ++k) ASSERT_EQ(runs[k].load(), 1) << threads << " threads, chunk " << k;
  }
}

TEST(ThreadPool, RangesCoverTheCountOnce) {
  ThreadPool pool(3);
  for (const std::int64_t count : {1, 7, 4096, 4097}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(count));
    pool.for_range(count, 64, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
    });
    for (std::int64_t i = 0; i < count; ++i) ASSERT_EQ(hits[i].load(), 1) << "count " << count << ", item " << i;
  }
}

TEST(ThreadPool, ManyShortLoopsInARow) {
  ThreadPool pool(4);
  std::atomic<std::int64_t> sum{0};
  for (int job = 0; job < 20000; ++job) pool.for_chunks(1 + job % 5, [&](std::int64_t k) { sum += k + 1; });
  std::int64_t expected = 0;
  for (int job = 0; job < 20000; ++job) expected += (1 + job % 5) * (2 + job % 5) / 2;
  EXPECT_EQ(sum.load(), expected);
}

TEST(ThreadPool, ExceptionsReachTheCaller) {
  ThreadPool pool(3);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.for_chunks(50,
                               [&](std::int64_t k) {
                                 ran++;
                                 if (k == 17) throw std::runtime_error("chunk 17");
                               }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 50);  // the other chunks still ran
  std::atomic<int> after{0};
  pool.for_chunks(10, [&](std::int64_t) { after++; });
  EXPECT_EQ(after.load(), 10);
}

}  // namespace
}  // namespace efield::detail
