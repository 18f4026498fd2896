#pragma once
// The CPU rasterize without atomics (pipeline_cpu.cpp).
//
// Every thread has its own copy of the two fixed-point maps (movable, filler). The cells, in index
// order, are cut into chunks that the threads claim one at a time; a thread adds a chunk's cells
// into its own copy with plain (non-atomic) adds. The density pass sums the copies row by row
// (take_row). Charge is accumulated in 64-bit fixed point (to_fixed_point), whose sums are exact:
// the maps are the same for any thread count and whichever thread ran which chunk. Rows a copy
// was not written in are neither summed nor cleared (touched_).
//
// Each copy takes 16 bytes per bin; the copies together are kept within kCopyBudgetBytes (at
// least one copy): with fewer copies than threads, a thread adds a chunk into whichever copy no
// other thread holds (a lock per copy), so memory stays bounded on many-core machines and big
// grids while the sums stay exact.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "cpu/thread_pool.hpp"
#include "electrostatics/cell_layout.hpp"
#include "electrostatics/cpu_block_footprints.hpp"

namespace efield::detail {

template <typename T>
class DensityCopies {
 public:
  // Footprints up to this many columns keep their column overlaps on the stack.
  static constexpr int kSpan = 8;

  // All copies of the maps together stay within this many bytes (one copy always exists).
  static constexpr std::size_t kCopyBudgetBytes = std::size_t(1) << 30;

  // How many copies `threads` threads get on an M x N grid.
  static int copies_for(int threads, std::size_t bins, std::size_t budget = kCopyBudgetBytes) {
    const std::size_t per_copy = 2 * sizeof(std::int64_t) * std::max<std::size_t>(bins, 1);
    const std::size_t fit = std::max<std::size_t>(1, budget / per_copy);
    return static_cast<int>(std::min<std::size_t>(std::max(1, threads), fit));
  }

  // The grid, the number of cells and of threads are fixed for the pipeline's life (`budget`:
  // kCopyBudgetBytes but in tests).
  void configure(const CellGeometry<T>& g, int threads, std::size_t budget = kCopyBudgetBytes) {
    g_ = g;
    bins_ = static_cast<std::size_t>(g.M) * g.N;
    copies_ = copies_for(threads, bins_, budget);
    shared_ = copies_ < std::max(1, threads);
    copy_locks_ = std::make_unique<std::mutex[]>(static_cast<std::size_t>(copies_));
    maps_.assign(static_cast<std::size_t>(copies_) * 2 * bins_, 0);
    // Apart by at least a cache line: each copy's flags are written by one thread at a time.
    touched_stride_ = (static_cast<std::size_t>(g.M) + 63) / 64 * 64 + 64;
    touched_.assign(static_cast<std::size_t>(copies_) * 2 * touched_stride_, 0);
    base_.assign(2 * static_cast<std::size_t>(g.M), -1);
    zeros_.assign(g.N, 0);
    chunks_ = (g.num_cells + kCellsPerChunk - 1) / kCellsPerChunk;
    chunk_outside_.assign(2 * static_cast<std::size_t>(std::max<std::int64_t>(chunks_, 1)), 0);
  }

  int copies() const { return copies_; }

  // The cells' sizes (movable cells first, then fillers) and the movable-macro mask
  // (CellGeometry::movable_macro, may be nullptr), held by the caller, which calls again after
  // changing them.
  void set_sizes(const T* widths, const T* heights, const std::uint8_t* movable_macro) {
    widths_ = widths;
    heights_ = heights;
    g_.movable_macro = movable_macro;
  }

  // Accumulates the charge of every cell at positions x, y (the caller's arrays) in fixed point
  // (`to_fixed` per area unit). outside[0], outside[1]: the movable and filler area outside the
  // region (outside_fixed_point sums).
  void rasterize(ThreadPool& pool, const T* x, const T* y, T to_fixed, std::int64_t outside[2]) {
    pool.for_chunks_on_threads(chunks_, [&](std::int64_t k, int t) {
      const std::int64_t c0 = k * kCellsPerChunk, c1 = std::min(g_.num_cells, c0 + kCellsPerChunk);
      if (!shared_) {
        add_cells(c0, c1, t, x, y, to_fixed, chunk_outside_.data() + 2 * k);
        return;
      }
      // A free copy if there is one (starting from the thread's own), else wait for its own.
      int copy = t % copies_;
      std::unique_lock<std::mutex> lock(copy_locks_[copy], std::try_to_lock);
      for (int i = 1; i < copies_ && !lock.owns_lock(); ++i) {
        copy = (t + i) % copies_;
        lock = std::unique_lock<std::mutex>(copy_locks_[copy], std::try_to_lock);
      }
      if (!lock.owns_lock()) {
        copy = t % copies_;
        lock = std::unique_lock<std::mutex>(copy_locks_[copy]);
      }
      add_cells(c0, c1, copy, x, y, to_fixed, chunk_outside_.data() + 2 * k);
    });
    outside[0] = outside[1] = 0;
    for (std::int64_t k = 0; k < chunks_; ++k) outside[0] += chunk_outside_[2 * k], outside[1] += chunk_outside_[2 * k + 1];
  }

  // The movable and filler fixed-point charge of natural row m (N values each, natural column
  // order): the copies summed into one of them. Call once per row after rasterize, then
  // clear_row(m) (zero for the next rasterize).
  void take_row(int m, const std::int64_t** movable, const std::int64_t** filler) {
    *movable = sum_copies(0, m);
    *filler = sum_copies(1, m);
  }
  void clear_row(int m) {
    for (int kind = 0; kind < 2; ++kind) {
      const int t = base_[2 * static_cast<std::size_t>(m) + kind];
      if (t < 0) continue;
      std::memset(row(t, kind, m), 0, sizeof(std::int64_t) * g_.N);
      touched(t, kind)[m] = 0;
      base_[2 * static_cast<std::size_t>(m) + kind] = -1;
    }
  }

 private:
  // Cells per chunk of the rasterize loop.
  static constexpr std::int64_t kCellsPerChunk = 4096;
  // How many cells ahead the rasterize loads the map's lines of a cell.
  static constexpr int kAhead = 8;

  std::int64_t* row(int copy, int kind, int m) {
    return maps_.data() + (static_cast<std::size_t>(copy) * 2 + kind) * bins_ + static_cast<std::size_t>(m) * g_.N;
  }
  std::uint8_t* touched(int copy, int kind) {
    return touched_.data() + (static_cast<std::size_t>(copy) * 2 + kind) * touched_stride_;
  }

  // Row m of the maps of `kind` (0 movable, 1 filler), summed into the first copy that has it.
  const std::int64_t* sum_copies(int kind, int m) {
    int base = -1;
    for (int t = 0; t < copies_; ++t) {
      if (!touched(t, kind)[m]) continue;
      if (base < 0) {
        base = t;
        continue;
      }
      std::int64_t* into = row(base, kind, m);
      std::int64_t* from = row(t, kind, m);
      for (int n = 0; n < g_.N; ++n) into[n] += from[n];
      std::memset(from, 0, sizeof(std::int64_t) * g_.N);
      touched(t, kind)[m] = 0;
    }
    base_[2 * static_cast<std::size_t>(m) + kind] = base;
    return base < 0 ? zeros_.data() : row(base, kind, m);
  }

  // Cells [c_begin, c_end) into copy t; their outside areas into out[movable, filler].
  void add_cells(std::int64_t c_begin, std::int64_t c_end, int t, const T* x, const T* y, T to_fixed, std::int64_t* out) {
    BlockFootprints<T> fp;
    T cell_outside[kBlock];
    const std::size_t N = static_cast<std::size_t>(g_.N);
    const T outside_scale = static_cast<T>(1 << kOutsideFractionBits);
    // Summed here and stored once: neighbouring chunks' sums share cache lines, and chunks next
    // to each other run on different threads at the same time.
    std::int64_t outside[2] = {0, 0};
    for (std::int64_t c0 = c_begin; c0 < c_end;) {
      const int filler = c0 < g_.num_movable ? 0 : 1;
      const std::int64_t c1 = std::min({c_end, c0 + kBlock, filler ? c_end : g_.num_movable});
      const int count = static_cast<int>(c1 - c0);
      const std::int64_t i0 = position_index(g_, c0);
      std::int64_t* map = row(t, filler, 0);
      std::uint8_t* rows_touched = touched(t, filler);
      block_footprints(g_, c0, x + i0, y + i0, widths_ + c0, heights_ + c0, count, fp);
      block_outside(g_, fp, count, cell_outside);
      for (int k = 0; k < count; ++k) {
        if (k + kAhead < count) {
          // The map's lines of a cell a few ahead: the adds below then rarely wait on memory.
          const int j = k + kAhead, m0 = fp.m0[j], m1 = fp.m1[j];
          __builtin_prefetch(map + m0 * N + fp.n0[j], 1);
          __builtin_prefetch(map + std::min(m0 + 1, m1) * N + fp.n0[j], 1);
          __builtin_prefetch(map + m1 * N + fp.n0[j], 1);
        }
        outside[filler] += to_fixed_point(cell_outside[k], outside_scale);
        const Footprint<T> f = fp[k];
        if (misses_grid(f, g_)) continue;
        add_rows(map, f, to_fixed, f.m0, f.m1);
        for (int m = f.m0; m <= f.m1; ++m) rows_touched[m] = 1;
      }
      c0 = c1;
    }
    out[0] = outside[0];
    out[1] = outside[1];
  }

  // Adds the cell's fixed-point charge in rows [m_begin, m_end] of its footprint. The weight of
  // bin (m, n) is footprint_weight's (charge * ox) * oy, the same bits as every other rasterize;
  // the column overlaps are computed once per cell (up to kSpan columns), charge * ox once per row.
  void add_rows(std::int64_t* map, const Footprint<T>& f, T to_fixed, int m_begin, int m_end) const {
    const int cols = f.n1 - f.n0 + 1;
    const std::size_t N = static_cast<std::size_t>(g_.N);
    if (cols <= kSpan) {
      T oy[kSpan];
      for (int j = 0; j < cols; ++j) oy[j] = overlap_y(f, g_, f.n0 + j);
      for (int m = m_begin; m <= m_end; ++m) {
        const T cx = f.charge * overlap_x(f, g_, m);
        std::int64_t* acc = map + m * N + f.n0;
        for (int j = 0; j < cols; ++j) acc[j] += to_fixed_point(cx * oy[j], to_fixed);
      }
      return;
    }
    for (int m = m_begin; m <= m_end; ++m) {
      const T cx = f.charge * overlap_x(f, g_, m);
      std::int64_t* acc = map + m * N;
      for (int n = f.n0; n <= f.n1; ++n) acc[n] += to_fixed_point(cx * overlap_y(f, g_, n), to_fixed);
    }
  }

  CellGeometry<T> g_;
  int copies_ = 1;
  bool shared_ = false;                     // fewer copies than threads: copies are locked
  std::unique_ptr<std::mutex[]> copy_locks_;
  std::size_t bins_ = 0;
  std::size_t touched_stride_ = 0;
  std::int64_t chunks_ = 0;
  const T* widths_ = nullptr;  // per cell (the caller's)
  const T* heights_ = nullptr;
  std::vector<std::int64_t> maps_;          // [copy][movable, filler][M][N] fixed-point charge, natural layout
  std::vector<std::uint8_t> touched_;       // [copy][movable, filler][touched_stride_]: the copy's row m was added to
  std::vector<int> base_;                   // [M][movable, filler]: the copy take_row summed into, or -1
  std::vector<std::int64_t> zeros_;         // a row of zeros (no copy has the row)
  std::vector<std::int64_t> chunk_outside_; // [chunk][movable, filler]
};

}  // namespace efield::detail
