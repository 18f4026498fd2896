#pragma once
// The CPU rasterize without atomics (pipeline_cpu.cpp).
//
// The grid's rows are cut into one band per thread; each band is one chunk of the loop, and the
// thread that runs it reads every cell in index order and adds only the rows of the cell's
// footprint that lie in its band, with plain (non-atomic) adds into the one map that every band
// shares (bands own disjoint rows). Reading a cell that misses the band costs its row range only:
// a block of cells at a time gets its rows in a loop the compiler vectorizes, and only the cells
// that touch the band are read further. A cell's area outside the region is counted by the band
// that holds its first row (one band for every cell).
// Charge is accumulated in 64-bit fixed point (to_fixed_point), whose sums are exact: the maps are
// the same for any thread count and however the rows are cut. The cut balances the work that the
// previous rasterize found per row (even rows before the first), so a placer's slowly moving
// cells keep the threads evenly loaded; a poor cut costs time, never bits.
// No sort, no second copy of the cells and no merging of bands: with one thread this is the plain
// loop over the cells in index order.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu/thread_pool.hpp"
#include "electrostatics/cell_layout.hpp"
#include "electrostatics/cpu_block_footprints.hpp"

namespace efield::detail {

template <typename T>
class DensityBands {
 public:
  // Footprints up to this many columns keep their column overlaps on the stack.
  static constexpr int kSpan = 8;

  // The grid, the number of cells and of threads are fixed for the pipeline's life.
  void configure(const CellGeometry<T>& g, int threads) {
    g_ = g;
    bands_ = std::max(1, std::min(threads, g.M));
    band_begin_.assign(bands_ + 1, 0);
    for (int b = 0; b <= bands_; ++b) band_begin_[b] = static_cast<int>(static_cast<std::int64_t>(g.M) * b / bands_);
    row_work_.assign(g.M, 0);
    band_outside_.assign(2 * static_cast<std::size_t>(bands_), 0);
    const std::size_t bins = static_cast<std::size_t>(g.M) * g.N;
    movable_.assign(bins, 0);
    filler_.assign(bins, 0);
    zeros_.assign(g.N, 0);
    touched_[0].assign(g.M, 0);
    touched_[1].assign(g.M, 0);
  }

  // The cells' sizes (movable cells first, then fillers), held by the caller, which calls again
  // after changing them.
  void set_sizes(const T* widths, const T* heights) {
    widths_ = widths;
    heights_ = heights;
  }

  // Cell c's stretched footprint at the caller's positions (stretch_cell; recomputed from the
  // sizes each time: 8 bytes read per cell instead of 20 for stored stretches).
  StretchedCell<T> stretched(std::int64_t c, const T* x, const T* y) const {
    const std::int64_t i = position_index(g_, c);
    return stretch_cell(x[i] - g_.xl, y[i] - g_.yl, widths_[c], heights_[c], g_.min_w, g_.min_h);
  }

  // Accumulates the charge of every cell at positions x, y (the caller's arrays) in fixed point
  // (`to_fixed` per area unit). outside[0], outside[1]: the movable and filler area outside the
  // region (outside_fixed_point sums).
  void rasterize(ThreadPool& pool, const T* x, const T* y, T to_fixed, std::int64_t outside[2]) {
    pool.for_chunks(bands_, [&](std::int64_t b) { add_band(static_cast<int>(b), x, y, to_fixed); });
    outside[0] = outside[1] = 0;
    for (int b = 0; b < bands_; ++b) outside[0] += band_outside_[2 * b], outside[1] += band_outside_[2 * b + 1];
    cut_bands();
  }

  // The movable and filler fixed-point charge of natural row m (N values each, natural column
  // order). Call once per row after rasterize, then clear_row(m) (zero for the next rasterize).
  void take_row(int m, const std::int64_t** movable, const std::int64_t** filler) const {
    const std::size_t row = static_cast<std::size_t>(m) * g_.N;
    *movable = touched_[0][m] ? movable_.data() + row : zeros_.data();
    *filler = touched_[1][m] ? filler_.data() + row : zeros_.data();
  }
  void clear_row(int m) {
    const std::size_t row = static_cast<std::size_t>(m) * g_.N;
    if (touched_[0][m]) std::memset(movable_.data() + row, 0, sizeof(std::int64_t) * g_.N);
    if (touched_[1][m]) std::memset(filler_.data() + row, 0, sizeof(std::int64_t) * g_.N);
    touched_[0][m] = touched_[1][m] = 0;
  }

 private:
  // How many cells ahead the rasterize loads the map's lines of a cell.
  static constexpr int kAhead = 8;

  // Band b: rows [band_begin_[b], band_begin_[b + 1]) of every cell, movable cells then fillers.
  void add_band(int b, const T* x, const T* y, T to_fixed) {
    const int lo = band_begin_[b], hi = band_begin_[b + 1];
    std::int64_t outside[2] = {0, 0};
    if (lo < hi) {
      BlockFootprints<T> fp;
      std::int32_t hit[kBlock];
      T cell_outside[kBlock], hx[kBlock], hy[kBlock], hw[kBlock], hh[kBlock];
      const std::size_t N = static_cast<std::size_t>(g_.N);
      const T outside_scale = static_cast<T>(1 << kOutsideFractionBits);
      for (int filler = 0; filler < 2; ++filler) {
        const std::int64_t c_begin = filler ? g_.num_movable : 0, c_end = filler ? g_.num_cells : g_.num_movable;
        // Array index of cell c is c + shift (position_index).
        const std::int64_t shift = filler ? g_.filler_offset - g_.num_movable : 0;
        std::int64_t* map = (filler ? filler_ : movable_).data();
        std::uint8_t* touched = touched_[filler].data();
        for (std::int64_t c0 = c_begin; c0 < c_end; c0 += kBlock) {
          const T *px = x + c0 + shift, *py = y + c0 + shift, *pw = widths_ + c0, *ph = heights_ + c0;
          int count = static_cast<int>(std::min<std::int64_t>(kBlock, c_end - c0));
          if (bands_ > 1) {
            // Only the cells that may meet the band get footprints: their positions and sizes, copied.
            count = band_cells(lo, hi, px, pw, count, hit);
            for (int k = 0; k < count; ++k) {
              const int i = hit[k];
              hx[k] = px[i], hy[k] = py[i], hw[k] = pw[i], hh[k] = ph[i];
            }
            px = hx, py = hy, pw = hw, ph = hh;
          }
          block_footprints(g_, px, py, pw, ph, count, fp);
          block_outside(g_, fp, count, cell_outside);
          for (int k = 0; k < count; ++k) {
            if (k + kAhead < count) {
              // The map's lines of a cell a few ahead: the adds below then rarely wait on memory.
              const int j = k + kAhead;
              const int r0 = std::min(std::max(fp.m0[j], lo), hi - 1), r1 = std::max(std::min(fp.m1[j], hi - 1), r0);
              __builtin_prefetch(map + r0 * N + fp.n0[j], 1);
              __builtin_prefetch(map + std::min(r0 + 1, r1) * N + fp.n0[j], 1);
              __builtin_prefetch(map + r1 * N + fp.n0[j], 1);
            }
            const Footprint<T> f = fp[k];
            if (f.m1 < lo || f.m0 >= hi) continue;  // let through by band_cells' margin
            const bool first_band = f.m0 >= lo;     // counts the area outside the region
            if (first_band) outside[filler] += to_fixed_point(cell_outside[k], outside_scale);
            if (misses_grid(f, g_)) {
              if (first_band) row_work_[f.m0] += kMissWork;
              continue;
            }
            const int m_begin = std::max(f.m0, lo), m_end = std::min(f.m1, hi - 1);
            add_rows(map, f, to_fixed, m_begin, m_end);
            for (int m = m_begin; m <= m_end; ++m) touched[m] = 1;
            row_work_[m_begin] += kCellWork + (m_end - m_begin + 1) * (f.n1 - f.n0 + 1);
          }
        }
      }
    }
    band_outside_[2 * b] = outside[0];
    band_outside_[2 * b + 1] = outside[1];
  }

  // The cells among `count` (positions px, widths pw) whose rows may meet [lo, hi): their numbers
  // into hit, returns how many. The rows are stretch_cell's and bin_range's along x (a vectorized
  // loop), taken with one row of margin on each side: a compiler may round this copy differently,
  // and the footprint computed afterwards decides.
  int band_cells(int lo, int hi, const T* px, const T* pw, int count, std::int32_t* hit) const {
    const T xl = g_.xl, min_w = g_.min_w, inv_bx = g_.inv_bx, top = static_cast<T>(g_.M - 1);
    std::int32_t meets[kBlock];
    for (int i = 0; i < count; ++i) {
      const T w = pw[i], ws = w > min_w ? w : min_w;
      const T x0 = (px[i] - xl) + (w - ws) * T(0.5);
      const int m0 = static_cast<int>(clamp_to_bins(x0 * inv_bx, top));
      const int m1 = static_cast<int>(clamp_to_bins((x0 + ws) * inv_bx, top));
      meets[i] = (m1 + 1 >= lo) & (m0 - 1 < hi);
    }
    int hits = 0;
    for (int i = 0; i < count; ++i) {
      hit[hits] = i;
      hits += meets[i];
    }
    return hits;
  }

  // Adds the cell's fixed-point charge in rows [m_begin, m_end] of its footprint. The weight of
  // bin (m, n) is footprint_weight's (charge * ox) * oy, the same bits as every other rasterize;
  // the column overlaps are computed once per cell (up to kSpan columns), charge * ox once per row.
  void add_rows(std::int64_t* map, const Footprint<T>& f, T to_fixed, int m_begin, int m_end) const {
    const int cols = f.n1 - f.n0 + 1;
    const std::size_t N = static_cast<std::size_t>(g_.N);
    if (cols <= kSpan) {
      T oy[kSpan];
      for (int j = 0; j < cols; ++j) oy[j] = bin_overlap(f.y0, f.y1, f.n0 + j, g_.by);
      for (int m = m_begin; m <= m_end; ++m) {
        const T cx = f.charge * bin_overlap(f.x0, f.x1, m, g_.bx);
        std::int64_t* acc = map + m * N + f.n0;
        for (int j = 0; j < cols; ++j) acc[j] += to_fixed_point(cx * oy[j], to_fixed);
      }
      return;
    }
    for (int m = m_begin; m <= m_end; ++m) {
      const T cx = f.charge * bin_overlap(f.x0, f.x1, m, g_.bx);
      std::int64_t* acc = map + m * N;
      for (int n = f.n0; n <= f.n1; ++n) acc[n] += to_fixed_point(cx * bin_overlap(f.y0, f.y1, n, g_.by), to_fixed);
    }
  }

  // The next cut: rows of about equal work in the rasterize that just ran (row_work_, which it
  // then clears). A cell costs kCellWork plus one unit per bin it adds in the row it starts in.
  void cut_bands() {
    std::int64_t total = 0;
    for (const std::int64_t w : row_work_) total += w;
    if (bands_ > 1 && total > 0) {
      std::int64_t before = 0;
      int b = 1;
      for (int m = 0; m < g_.M && b < bands_; ++m) {
        before += row_work_[m];
        // Band b starts after the row that takes the work before it to b / bands of the total.
        while (b < bands_ && before * bands_ >= total * b) band_begin_[b++] = m + 1;
      }
      for (; b < bands_; ++b) band_begin_[b] = g_.M;
    }
    std::fill(row_work_.begin(), row_work_.end(), 0);
  }

  // Work units of a cell apart from its bins (its footprint, the outside area), and of a cell
  // that misses the grid.
  static constexpr std::int64_t kCellWork = 8, kMissWork = 1;

  CellGeometry<T> g_;
  int bands_ = 1;
  const T* widths_ = nullptr;                   // per cell (the caller's)
  const T* heights_ = nullptr;
  std::vector<int> band_begin_;                 // band b: rows [band_begin_[b], band_begin_[b + 1])
  std::vector<std::int64_t> row_work_;          // per row: the last rasterize's work (cut_bands)
  std::vector<std::int64_t> band_outside_;      // [band][movable, filler]
  std::vector<std::int64_t> movable_, filler_;  // fixed-point charge [M][N], natural layout
  // Per row of movable_ and filler_: whether the rasterize added to it (else it is zero and the
  // density pass reads zeros_ instead, and clears nothing).
  std::vector<std::uint8_t> touched_[2];
  std::vector<std::int64_t> zeros_;
};

}  // namespace efield::detail
