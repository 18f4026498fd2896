#pragma once
// The CPU rasterize without atomics (pipeline_cpu.cpp).
//
// One thread adds every cell, in index order, into one accumulator per map. Several threads:
//   1. each cell's first footprint row m0 is its key; cells whose footprint spans more than
//      kShortRows rows ("tall": macros) get the last key;
//   2. a counting sort by key (per chunk of cells, then chunk order: stable) writes each cell's
//      stretched footprint into sorted order;
//   3. the sorted short cells are cut into `parts` runs of about equal work. Part p's cells touch only
//      rows [m0 of its first cell, m0 of its last cell + kShortRows - 1], its band; each part is
//      added by one thread into its own band of rows, with plain (non-atomic) adds. The bands
//      tile the grid's rows, overlapping at their ends;
//   4. tall cells are added row by row, each row by one thread, into the first band holding it;
//   5. the density pass reads each row as the sum of the bands that hold it (take_row).
// Charge is accumulated in 64-bit fixed point (to_fixed_point), whose sums are exact: the maps are
// the same for any thread count and whichever thread ran what. Sorting by row also keeps a
// thread's writes within a few rows of the map (cache-resident). Bands need at most
// M + parts * kShortRows rows (allocated once).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu/thread_pool.hpp"
#include "electrostatics/cell_layout.hpp"

namespace efield::detail {

// One cell's stretched footprint (stretch_cell relative to the region) and its cell index.
template <typename T>
struct CellRecord {
  StretchedCell<T> s;
  std::int32_t cell;
};

template <typename T>
class DensityBands {
 public:
  // A footprint spanning more rows than this is tall (added row by row, step 4).
  static constexpr int kShortRows = 4;
  // Footprints up to this many columns keep their column overlaps on the stack.
  static constexpr int kSpan = 8;

  // The grid, the number of cells and of threads are fixed for the pipeline's life.
  void configure(const CellGeometry<T>& g, int threads) {
    g_ = g;
    // Two parts and two chunks per thread: loops claim them one at a time, so a thread that the
    // system deschedules leaves less of the work waiting.
    parts_ = threads > 1 ? 2 * threads : 1;
    chunks_ = parts_;
    sort_ = parts_ > 1;
    const std::size_t n = static_cast<std::size_t>(g.num_cells);
    const std::size_t keys = static_cast<std::size_t>(g.M) + 1;
    if (sort_) {
      key_.resize(n);
      sorted_.resize(n);
      histogram_.assign(static_cast<std::size_t>(chunks_) * keys, 0);
      work_.assign(static_cast<std::size_t>(chunks_) * keys, 0);
    }
    part_outside_.assign(2 * static_cast<std::size_t>(std::max(parts_, chunks_)), 0);
    part_begin_.assign(parts_ + 1, 0);
    band_lo_.assign(parts_, 0);
    band_hi_.assign(parts_, -1);
    band_base_.assign(parts_, 0);
    first_band_.assign(g.M, 0);
    last_band_.assign(g.M, 0);
    const std::size_t rows = static_cast<std::size_t>(g.M) + (sort_ ? parts_ * std::size_t{kShortRows} : 0);
    movable_.assign(rows * g.N, 0);
    filler_.assign(rows * g.N, 0);
    if (!sort_) band_hi_[0] = g.M - 1;  // one band: the whole grid
  }

  // The cells' sizes (movable cells first, then fillers), held by the caller, which calls again
  // after changing them.
  void set_sizes(const T* widths, const T* heights) {
    widths_ = widths;
    heights_ = heights;
  }

  // Cell c's stretched footprint at the caller's positions (stretch_cell; recomputed from the
  // sizes each time: 8 bytes read per cell instead of 20 for stored stretches, and the passes
  // are bound by memory traffic).
  StretchedCell<T> stretched(std::int64_t c, const T* x, const T* y) const {
    const std::int64_t i = position_index(g_, c);
    return stretch_cell(x[i] - g_.xl, y[i] - g_.yl, widths_[c], heights_[c], g_.min_w, g_.min_h);
  }

  // Accumulates the charge of every cell at positions x, y (the caller's arrays) in fixed point
  // (`to_fixed` per area unit). outside[0], outside[1]: the movable and filler area outside the
  // region (outside_fixed_point sums).
  void rasterize(ThreadPool& pool, const T* x, const T* y, T to_fixed, std::int64_t outside[2]) {
    if (!sort_) {
      std::int64_t* out = part_outside_.data();
      out[0] = out[1] = 0;
      for (std::int64_t c = 0; c < g_.num_cells; ++c) add_cell(c, stretched(c, x, y), to_fixed, out, 0);
    } else {
      sort_cells(pool, x, y);
      // 3. Short cells, one part per chunk, each into its own band.
      pool.for_chunks(parts_, [&](std::int64_t p) {
        std::int64_t* out = part_outside_.data() + 2 * p;
        out[0] = out[1] = 0;
        for (std::int64_t k = part_begin_[p]; k < part_begin_[p + 1]; ++k)
          add_cell(sorted_[k].cell, sorted_[k].s, to_fixed, out, static_cast<int>(p));
      });
      // 4. Tall cells, row by row (their outside area: by the first chunk).
      if (short_cells_ < g_.num_cells) {
        constexpr int kRowsPerChunk = 8;
        pool.for_range(g_.M, kRowsPerChunk, [&](std::int64_t lo, std::int64_t hi) {
          for (std::int64_t k = short_cells_; k < g_.num_cells; ++k) {
            const CellRecord<T>& r = sorted_[k];
            const Footprint<T> f = stretched_footprint(g_, r.s);
            if (lo == 0) part_outside_[2 * (parts_ - 1) + (r.cell < g_.num_movable ? 0 : 1)] += outside_fixed_point(f, g_);
            add_rows(r.cell, f, to_fixed, std::max(f.m0, static_cast<int>(lo)), std::min(f.m1, static_cast<int>(hi) - 1),
                     [&](int m) { return band_row(first_band_[m], m); });
          }
        });
      }
    }
    outside[0] = outside[1] = 0;
    for (int p = 0; p < parts_; ++p) outside[0] += part_outside_[2 * p], outside[1] += part_outside_[2 * p + 1];
  }

  // The movable and filler fixed-point charge of natural row m (N values each, natural column
  // order): the sum of the bands that hold the row. Call once per row after rasterize, then
  // clear_row(m) (the bands must be zero for the next rasterize).
  void take_row(int m, const std::int64_t** movable, const std::int64_t** filler) {
    const int first = first_band_[m];
    std::int64_t* am = movable_.data() + band_row(first, m);
    std::int64_t* af = filler_.data() + band_row(first, m);
    for (int p = first + 1; p <= last_band_[m]; ++p) {
      if (band_lo_[p] > m || band_hi_[p] < m) continue;
      std::int64_t* bm = movable_.data() + band_row(p, m);
      std::int64_t* bf = filler_.data() + band_row(p, m);
      for (int n = 0; n < g_.N; ++n) am[n] += bm[n], af[n] += bf[n];
      std::memset(bm, 0, sizeof(std::int64_t) * g_.N);
      std::memset(bf, 0, sizeof(std::int64_t) * g_.N);
    }
    *movable = am;
    *filler = af;
  }
  void clear_row(int m) {
    std::memset(movable_.data() + band_row(first_band_[m], m), 0, sizeof(std::int64_t) * g_.N);
    std::memset(filler_.data() + band_row(first_band_[m], m), 0, sizeof(std::int64_t) * g_.N);
  }

 private:
  // Offset of natural row m of band p in the pools (in elements).
  std::size_t band_row(int p, int m) const {
    return (band_base_[p] + static_cast<std::size_t>(m - band_lo_[p])) * static_cast<std::size_t>(g_.N);
  }

  // Steps 1-2: keys, the counting sort into sorted_, the parts and their bands.
  void sort_cells(ThreadPool& pool, const T* x, const T* y) {
    const std::int64_t n = g_.num_cells;
    const std::size_t keys = static_cast<std::size_t>(g_.M) + 1;
    const std::int64_t per_chunk = (n + chunks_ - 1) / chunks_;
    pool.for_chunks(chunks_, [&](std::int64_t q) {
      std::int32_t* hist = histogram_.data() + q * keys;
      std::int64_t* work = work_.data() + q * keys;
      std::fill(hist, hist + keys, 0);
      std::fill(work, work + keys, 0);
      const std::int64_t end = std::min(n, (q + 1) * per_chunk);
      const T width = static_cast<T>(g_.M) * g_.bx;
      for (std::int64_t c = q * per_chunk; c < end; ++c) {
        // The footprint's rows, as stretch_cell and stretched_footprint compute them (x only: the
        // keys pass reads half the bytes of the scatter that follows).
        const T w = widths_[c], ws = w > g_.min_w ? w : g_.min_w;
        const T x0 = (x[position_index(g_, c)] - g_.xl) + (w - ws) * T(0.5), x1 = x0 + ws;
        int m0, m1;
        bin_range(x0, x1, g_.inv_bx, g_.M, &m0, &m1);
        const int key = m1 - m0 < kShortRows ? m0 : g_.M;
        key_[c] = key;
        ++hist[key];
        // add_cell's work in rough units (about as many columns as rows); a cell left or right of
        // the grid is only looked at (misses_grid).
        work[key] += x1 <= T(0) || x0 >= width ? 1 : 4 + 3 * (m1 - m0 + 1);
      }
    });
    // Offsets: key-major, then chunk order (a stable sort).
    std::int64_t running = 0;
    for (std::size_t key = 0; key < keys; ++key)
      for (int q = 0; q < chunks_; ++q) {
        std::int32_t& h = histogram_[q * keys + key];
        const std::int32_t count = h;
        h = static_cast<std::int32_t>(running);
        running += count;
      }
    short_cells_ = histogram_[static_cast<std::size_t>(g_.M)];  // chunk 0's offset of the tall key
    split_parts();
    plan_bands();
    pool.for_chunks(chunks_, [&](std::int64_t q) {
      std::int32_t* offset = histogram_.data() + q * keys;
      const std::int64_t end = std::min(n, (q + 1) * per_chunk);
      for (std::int64_t c = q * per_chunk; c < end; ++c)
        sorted_[offset[key_[c]]++] = {stretched(c, x, y), static_cast<std::int32_t>(c)};
    });
  }

  // Adds cell c (stretched footprint s) into band p: its outside area into out[movable or filler].
  void add_cell(std::int64_t c, const StretchedCell<T>& s, T to_fixed, std::int64_t* out, int p) {
    const Footprint<T> f = stretched_footprint(g_, s);
    out[c < g_.num_movable ? 0 : 1] += outside_fixed_point(f, g_);
    if (misses_grid(f, g_)) return;
    add_rows(c, f, to_fixed, f.m0, f.m1, [&](int m) { return band_row(p, m); });
  }

  // Adds the cell's fixed-point charge in rows [m_begin, m_end] of its footprint; row(m) is the
  // offset of row m in the movable or filler pool. The weight of bin (m, n) is footprint_weight's
  // (charge * ox) * oy, the same bits as every other rasterize; the column overlaps are computed
  // once per cell (up to kSpan columns), the row's charge * ox once per row.
  template <typename RowOffset>
  void add_rows(std::int64_t c, const Footprint<T>& f, T to_fixed, int m_begin, int m_end, RowOffset row) {
    std::int64_t* pool = (c < g_.num_movable ? movable_ : filler_).data();
    const int cols = f.n1 - f.n0 + 1;
    if (cols <= kSpan) {
      T oy[kSpan];
      for (int j = 0; j < cols; ++j) oy[j] = bin_overlap(f.y0, f.y1, f.n0 + j, g_.by);
      for (int m = m_begin; m <= m_end; ++m) {
        const T cx = f.charge * bin_overlap(f.x0, f.x1, m, g_.bx);
        std::int64_t* acc = pool + row(m) + f.n0;
        for (int j = 0; j < cols; ++j) acc[j] += to_fixed_point(cx * oy[j], to_fixed);
      }
      return;
    }
    for (int m = m_begin; m <= m_end; ++m) {
      const T cx = f.charge * bin_overlap(f.x0, f.x1, m, g_.bx);
      std::int64_t* acc = pool + row(m);
      for (int n = f.n0; n <= f.n1; ++n) acc[n] += to_fixed_point(cx * bin_overlap(f.y0, f.y1, n, g_.by), to_fixed);
    }
  }

  // Step 3's parts: runs of the sorted short cells of about equal work (the work estimates of the
  // keys pass, taken as even within a key), so that cells missing the grid (cheap) and cells
  // piled into a few rows (one key) are shared out too. Any split gives the same sums.
  void split_parts() {
    const std::size_t keys = static_cast<std::size_t>(g_.M) + 1;
    double total = 0;
    for (int key = 0; key < g_.M; ++key)
      for (int q = 0; q < chunks_; ++q) total += static_cast<double>(work_[q * keys + key]);
    part_begin_[0] = 0;
    int p = 1;
    double before = 0;  // work of the keys before `key`
    for (int key = 0; key < g_.M && p < parts_; ++key) {
      double in_key = 0;
      for (int q = 0; q < chunks_; ++q) in_key += static_cast<double>(work_[q * keys + key]);
      const std::int64_t first = histogram_[key], count = histogram_[key + 1] - first;
      while (p < parts_ && before + in_key >= total * p / parts_) {
        const double fraction = in_key > 0 ? (total * p / parts_ - before) / in_key : 0.0;
        part_begin_[p] = first + std::min(count, static_cast<std::int64_t>(fraction * static_cast<double>(count)));
        ++p;
      }
      before += in_key;
    }
    for (; p <= parts_; ++p) part_begin_[p] = short_cells_;
    for (int k = 1; k <= parts_; ++k) part_begin_[k] = std::max(part_begin_[k], part_begin_[k - 1]);
  }

  // Step 3's bands (see the file comment), from the parts and the sorted keys' offsets.
  void plan_bands() {
    // Row of the short cell at sorted position s: the last key whose first position (chunk 0's
    // offset) is <= s.
    const auto row_of = [&](std::int64_t s) {
      int lo = 0, hi = g_.M - 1;
      while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (histogram_[mid] <= s) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    };
    int covered = -1;  // rows [0, covered] are in some band
    int last_nonempty = -1;
    std::size_t base = 0;
    for (int p = 0; p < parts_; ++p) {
      band_base_[p] = base;
      if (part_begin_[p] == part_begin_[p + 1]) {
        band_lo_[p] = covered + 1, band_hi_[p] = covered;  // empty
        continue;
      }
      const int first = row_of(part_begin_[p]), last = row_of(part_begin_[p + 1] - 1);
      band_lo_[p] = std::min(first, covered + 1);
      band_hi_[p] = std::min(g_.M - 1, last + kShortRows - 1);
      covered = std::max(covered, band_hi_[p]);
      last_nonempty = p;
      base += static_cast<std::size_t>(band_hi_[p] - band_lo_[p] + 1);
    }
    if (last_nonempty < 0) {  // no short cells: one band of every row for the tall ones
      last_nonempty = 0;
      band_lo_[0] = 0, band_hi_[0] = -1;
    }
    if (covered < g_.M - 1) {
      // Extend the last band to the grid's end (it is the last in the pool: bases stay valid).
      base += static_cast<std::size_t>(g_.M - 1 - band_hi_[last_nonempty]);
      band_hi_[last_nonempty] = g_.M - 1;
      for (int p = last_nonempty + 1; p < parts_; ++p) band_base_[p] = base, band_lo_[p] = g_.M, band_hi_[p] = g_.M - 1;
    }
    std::fill(first_band_.begin(), first_band_.end(), -1);
    for (int p = 0; p < parts_; ++p)
      for (int m = band_lo_[p]; m <= band_hi_[p]; ++m) {
        if (first_band_[m] < 0) first_band_[m] = p;
        last_band_[m] = p;
      }
  }

  CellGeometry<T> g_;
  int parts_ = 1, chunks_ = 1;
  bool sort_ = false;  // several parts: steps 1-4; one: every cell in index order into one band
  std::int64_t short_cells_ = 0;                 // sorted positions [0, short_cells_) are short
  const T* widths_ = nullptr;                    // per cell (the caller's)
  const T* heights_ = nullptr;
  std::vector<std::int32_t> key_;                // per cell: first row, or M when tall
  std::vector<CellRecord<T>> sorted_;
  std::vector<std::int32_t> histogram_;          // [chunk][key]: counts, then sorted offsets
  std::vector<std::int64_t> work_;               // [chunk][key]: work estimates (split_parts)
  std::vector<std::int64_t> part_outside_;       // [part][movable, filler]
  std::vector<std::int64_t> part_begin_;         // sorted positions of each part's cells
  std::vector<int> band_lo_, band_hi_;           // each part's band of rows (natural row numbers)
  std::vector<std::size_t> band_base_;           // each band's first row in the pools
  std::vector<int> first_band_, last_band_;      // per row: the bands that hold it
  std::vector<std::int64_t> movable_, filler_;   // the band pools [pool row][N]
};

}  // namespace efield::detail
