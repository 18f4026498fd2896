// Movable large cells by difference map, in O(1) memory operations per cell (large_cells.cuh,
// docs/math.md 2.12):
// corner updates of a 64-bit difference map, a 2D prefix sum over the cells' bounding box into
// the density map, and a double summed-area table of the field map for the gather. The prefix
// sums run over rows (a block per row, CUB block scans with a carry) and then over columns in
// segments of kEsDiffSegmentRows rows (a thread per column and segment: the segment's sum, then
// the sums of the segments above as its carry), so every pass reads the box once, coalesced.
// Integer prefix sums are exact in any order (two's complement wraps cancel), so the density map
// gets each bin's integer exactly; the double sums' round-off is bounded in docs/math.md 2.12.
#include "electrostatics/large_cells.cuh"

#include <cub/block/block_scan.cuh>

#include <climits>

#include "common/cuda_check.cuh"
#include "electrostatics/large_cell_segments.hpp"

namespace efield::detail {
namespace {

// (Ex, Ey) sums of the summed-area table.
struct SatPair {
  double x, y;
  __host__ __device__ SatPair operator+(const SatPair& o) const { return {x + o.x, y + o.y}; }
  __host__ __device__ SatPair operator-(const SatPair& o) const { return {x - o.x, y - o.y}; }
};

// The box [m_lo, m_hi] x [n_lo, n_hi] the passes cover (m_lo > m_hi: no cell on the grid).
struct Box {
  int m_lo, m_hi, n_lo, n_hi;
};
__device__ __forceinline__ Box load_box(const int* box) { return {box[0], box[1], box[2], box[3]}; }

// ---- The passes, shared by the difference map (long long) and the summed-area table (SatPair) ----

// Row m of the box: v(m, n) -> sum over n_lo <= n' <= n, in chunks of kEsThreads with a carry.
template <typename V, typename Load, typename Store>
__device__ __forceinline__ void scan_row(const Box& b, int m, Load load, Store store) {
  using Scan = cub::BlockScan<V, kEsThreads>;
  __shared__ typename Scan::TempStorage storage;
  V carry{};
  for (int n0 = b.n_lo; n0 <= b.n_hi; n0 += kEsThreads) {
    const int n = n0 + static_cast<int>(threadIdx.x);
    V v = n <= b.n_hi ? load(m, n) : V{};
    V total;
    Scan(storage).InclusiveSum(v, v, total);
    if (n <= b.n_hi) store(m, n, carry + v);
    carry = carry + total;
    __syncthreads();  // storage is reused
  }
}

// Column n's rows of segment s (kEsDiffSegmentRows rows from m_lo): [*first, *last]; false when
// (n, s) lies outside the box.
__device__ __forceinline__ bool segment_rows(const Box& b, int n, int s, int* first, int* last) {
  if (n < b.n_lo || n > b.n_hi) return false;
  *first = b.m_lo + s * kEsDiffSegmentRows;
  if (*first > b.m_hi) return false;
  *last = min(*first + kEsDiffSegmentRows - 1, b.m_hi);
  return true;
}

// Pass 2: the sum of each column's segment (the rows already prefix-summed along n).
template <typename V, typename Load>
__device__ __forceinline__ void sum_segment(const Box& b, int N, Load load, V* sums) {
  const int n = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x), s = static_cast<int>(blockIdx.y);
  int first, last;
  if (!segment_rows(b, n, s, &first, &last)) return;
  V t{};
  for (int m = first; m <= last; ++m) t = t + load(m, n);
  sums[static_cast<std::int64_t>(s) * N + n] = t;
}

// Pass 3: the segments above as a carry, then the running sum down the segment: finish(m, n, S)
// gets the 2D prefix sum S(m, n) over [m_lo, m] x [n_lo, n].
template <typename V, typename Load, typename Finish>
__device__ __forceinline__ void finish_segment(const Box& b, int N, Load load, const V* sums, Finish finish) {
  const int n = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x), s = static_cast<int>(blockIdx.y);
  int first, last;
  if (!segment_rows(b, n, s, &first, &last)) return;
  V carry{};
  for (int k = 0; k < s; ++k) carry = carry + sums[static_cast<std::int64_t>(k) * N + n];
  for (int m = first; m <= last; ++m) {
    carry = carry + load(m, n);
    finish(m, n, carry);
  }
}

// ---- Density: the difference map ----------------------------------------------------------------

template <typename T>
__device__ __forceinline__ void add_corner(const DiffRasterArgs<T>& a, int m, int n, std::int64_t v) {
  if (m < a.in.g.M && n < a.in.g.N)  // past the grid's last row or column: affects no bin
    atomicAdd(a.diff + static_cast<std::int64_t>(m) * a.in.g.N + n, static_cast<EsAccum>(v));
}

// One block: every diff cell's outside area, its rectangles' corner updates, and the box of their
// footprints, extended by a row and a column (where the last corners land) within the grid.
template <typename T>
__global__ void diff_corners(DiffRasterArgs<T> a) {
  __shared__ int box[4];
  if (threadIdx.x == 0) {
    box[0] = INT_MAX;
    box[1] = -1;
    box[2] = INT_MAX;
    box[3] = -1;
  }
  __syncthreads();
  for (int k = static_cast<int>(threadIdx.x); k < a.count; k += static_cast<int>(blockDim.x)) {
    const int c = a.cells[k];
    const std::int64_t i = position_index(a.in.g, static_cast<std::int64_t>(c));
    const Footprint<T> f = cell_footprint(a.in.g, c, a.in.x[i], a.in.y[i], a.in.w[c], a.in.h[c]);
    add_movable_outside(a.outside, f, a.in.g, c);
    if (misses_grid(f, a.in.g)) continue;  // every weight is 0
    const FootprintSegments<T> s = footprint_segments(f, a.in.g);
    for (int p = 0; p < s.x.count; ++p)
      for (int r = 0; r < s.y.count; ++r) {
        const std::int64_t v = fixed_weight(s.weight(p, r), a.target.units);
        if (v == 0) continue;
        add_corner(a, s.x.first[p], s.y.first[r], v);
        add_corner(a, s.x.last[p] + 1, s.y.first[r], -v);
        add_corner(a, s.x.first[p], s.y.last[r] + 1, -v);
        add_corner(a, s.x.last[p] + 1, s.y.last[r] + 1, v);
      }
    atomicMin(&box[0], f.m0);
    atomicMax(&box[1], f.m1);
    atomicMin(&box[2], f.n0);
    atomicMax(&box[3], f.n1);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const bool any = box[1] >= 0;
    a.box[0] = any ? box[0] : 0;
    a.box[1] = any ? min(box[1] + 1, a.in.g.M - 1) : -1;
    a.box[2] = any ? box[2] : 0;
    a.box[3] = any ? min(box[3] + 1, a.in.g.N - 1) : -1;
  }
}

template <typename T>
__device__ __forceinline__ long long diff_at(const DiffRasterArgs<T>& a, int m, int n) {
  return static_cast<long long>(a.diff[static_cast<std::int64_t>(m) * a.in.g.N + n]);
}

template <typename T>
__global__ void diff_rows(DiffRasterArgs<T> a) {
  const Box b = load_box(a.box);
  const int m = static_cast<int>(blockIdx.x);
  if (m < b.m_lo || m > b.m_hi) return;
  scan_row<long long>(
      b, m, [&](int r, int n) { return diff_at(a, r, n); },
      [&](int r, int n, long long v) {
        a.diff[static_cast<std::int64_t>(r) * a.in.g.N + n] = static_cast<EsAccum>(v);
      });
}

template <typename T>
__global__ void diff_segment_sums(DiffRasterArgs<T> a) {
  sum_segment<long long>(load_box(a.box), a.in.g.N, [&](int m, int n) { return diff_at(a, m, n); }, a.segment_sums);
}

// The 2D prefix sums are the bins' integers: into the map (non-zero ones), the difference map cleared.
template <typename T>
__global__ void diff_resolve(DiffRasterArgs<T> a) {
  finish_segment<long long>(load_box(a.box), a.in.g.N, [&](int m, int n) { return diff_at(a, m, n); }, a.segment_sums,
                            [&](int m, int n, long long v) {
                              a.diff[static_cast<std::int64_t>(m) * a.in.g.N + n] = 0;
                              if (v != 0) add_bin_units(a.target, m, n, v);
                            });
}

// ---- Gather: the summed-area table ----------------------------------------------------------------

template <typename T>
__device__ __forceinline__ SatPair sat_at(const DiffGatherArgs<T>& a, int m, int n) {
  const double* p = a.sat + 2 * (static_cast<std::int64_t>(m) * a.in.g.N + n);
  return {p[0], p[1]};
}
template <typename T>
__device__ __forceinline__ void sat_store(const DiffGatherArgs<T>& a, int m, int n, SatPair v) {
  double* p = a.sat + 2 * (static_cast<std::int64_t>(m) * a.in.g.N + n);
  p[0] = v.x;
  p[1] = v.y;
}

template <typename T>
__global__ void sat_rows(DiffGatherArgs<T> a) {
  if (es_gather_skipped(a)) return;
  const Box b = load_box(a.box);
  const int m = static_cast<int>(blockIdx.x);
  if (m < b.m_lo || m > b.m_hi) return;
  scan_row<SatPair>(
      b, m,
      [&](int r, int n) {
        const EsVec2<T> e = a.e[es_tile_index(r, n, a.in.g.N)];
        return SatPair{static_cast<double>(e.x), static_cast<double>(e.y)};
      },
      [&](int r, int n, SatPair v) { sat_store(a, r, n, v); });
}

template <typename T>
__global__ void sat_segment_sums(DiffGatherArgs<T> a) {
  if (es_gather_skipped(a)) return;
  sum_segment<SatPair>(load_box(a.box), a.in.g.N, [&](int m, int n) { return sat_at(a, m, n); },
                       reinterpret_cast<SatPair*>(a.segment_sums));
}

template <typename T>
__global__ void sat_finish(DiffGatherArgs<T> a) {
  if (es_gather_skipped(a)) return;
  finish_segment<SatPair>(load_box(a.box), a.in.g.N, [&](int m, int n) { return sat_at(a, m, n); },
                          reinterpret_cast<const SatPair*>(a.segment_sums),
                          [&](int m, int n, SatPair v) { sat_store(a, m, n, v); });
}

// One thread per diff cell: the 9 rectangle sums (4 reads of the table each) times their weights.
template <typename T>
__global__ void sat_gather(DiffGatherArgs<T> a) {
  const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= a.count || es_gather_skipped(a)) return;
  const int c = a.cells[k];
  const std::int64_t i = position_index(a.in.g, static_cast<std::int64_t>(c));
  const Footprint<T> f = cell_footprint(a.in.g, c, a.in.x[i], a.in.y[i], a.in.w[c], a.in.h[c]);
  double gx = 0, gy = 0;
  if (!misses_grid(f, a.in.g)) {  // else every weight is 0 (and the box may not hold it)
    const Box b = load_box(a.box);
    const FootprintSegments<T> s = footprint_segments(f, a.in.g);
    const auto sat = [&](int m, int n) { return sat_at(a, m, n); };
    for (int p = 0; p < s.x.count; ++p)
      for (int r = 0; r < s.y.count; ++r) {
        const SatPair sum = rectangle_sum<SatPair>(sat, b.m_lo, b.n_lo, s.x.first[p], s.x.last[p], s.y.first[r],
                                                   s.y.last[r]);
        const double wgt = static_cast<double>(s.weight(p, r));
        gx += wgt * sum.x;
        gy += wgt * sum.y;
      }
  }
  store_large_gradient(a.out, i, static_cast<T>(gx), static_cast<T>(gy));
}

// Grids of the passes: a block per row; columns in blocks of kEsThreads times the segments.
dim3 column_grid(int M, int N) {
  return dim3(static_cast<unsigned>((N + kEsThreads - 1) / kEsThreads), static_cast<unsigned>(es_diff_segments(M)));
}

}  // namespace

template <typename T>
void launch_diff_rasterize(const DiffRasterArgs<T>& a, cudaStream_t stream) {
  if (a.count == 0) return;
  diff_corners<T><<<1, kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
  diff_rows<T><<<a.in.g.M, kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
  diff_segment_sums<T><<<column_grid(a.in.g.M, a.in.g.N), kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
  diff_resolve<T><<<column_grid(a.in.g.M, a.in.g.N), kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_diff_gather(const DiffGatherArgs<T>& a, cudaStream_t stream) {
  if (a.count == 0) return;
  sat_rows<T><<<a.in.g.M, kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
  sat_segment_sums<T><<<column_grid(a.in.g.M, a.in.g.N), kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
  sat_finish<T><<<column_grid(a.in.g.M, a.in.g.N), kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
  sat_gather<T><<<es_blocks_for(a.count), kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template void launch_diff_rasterize<float>(const DiffRasterArgs<float>&, cudaStream_t);
template void launch_diff_rasterize<double>(const DiffRasterArgs<double>&, cudaStream_t);
template void launch_diff_gather<float>(const DiffGatherArgs<float>&, cudaStream_t);
template void launch_diff_gather<double>(const DiffGatherArgs<double>&, cudaStream_t);

}  // namespace efield::detail
