#pragma once
// Internal: the CUDA electrostatic pipeline's choices in one place. The kernels' launch
// parameters per GPU architecture (a table: the values measured on one architecture, and what
// other architectures get until they are measured), then how an evaluate accumulates the density
// map (Bins) and when it changes that (BinsPolicy: the pile-up state machine). The measurements
// behind each value are in bench_ispd/results/electrostatics.md and docs/performance.md.
#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace efield::detail {

// ---- Launch parameters -------------------------------------------------------------------------

// Threads of every kernel's block (the fixed-order block reductions and the shared windows are
// sized by it, so it is one value on every architecture).
inline constexpr int kEsThreads = 256;
// Upper bound on the blocks of the grid-stride reduction kernels (= number of partials).
inline constexpr int kEsMaxReduceBlocks = 1024;
// Upper bound on the blocks of the kernels that take a row per block (grid-stride over rows).
inline constexpr int kEsMaxRowBlocks = 4096;
// Bins of a piled block's shared window (32 KB: the cell kernels' blocks per SM still fit;
// docs/performance.md, "CUDA pipeline: piled cells"), and the most movable cells a thread of such
// a block takes (es_kernels.cuh checks that a block's sum in one window bin fits 32 bits).
inline constexpr int kEsPiledWindowBins = 8192;
inline constexpr int kEsPiledMaxCellsPerThread = 32;

// What differs by architecture: one row per range of compute capabilities (10 major + minor), the
// first that covers the device wins.
struct EsLaunchRow {
  int min_cc;  // inclusive
  int max_cc;
  // Rasterize and gather (one thread per cell, each waiting on a few scattered L2 accesses):
  // __launch_bounds__ minimum blocks per SM in float (double keeps the compiler's choice).
  int cell_min_blocks_float;
  // Blocks the piled movable cells are spread over, per SM (cells per thread follow, capped).
  int piled_blocks_per_sm;
};
inline constexpr EsLaunchRow kEsLaunchRows[] = {
    // sm_90 (H100, H200), measured: 6 blocks of 256 threads keep 40 registers with a few bytes of
    // spill (8 spill far more; docs/performance.md, "Cell kernels: register cap").
    {90, 99, 6, 4},
    // Every other GPU: sm_90's values until measured there.
    {0, 1 << 30, 6, 4},
};
constexpr EsLaunchRow es_launch_row(int compute_capability) {
  for (const EsLaunchRow& row : kEsLaunchRows)
    if (compute_capability >= row.min_cc && compute_capability <= row.max_cc) return row;
  return kEsLaunchRows[sizeof(kEsLaunchRows) / sizeof(kEsLaunchRows[0]) - 1];
}

// The architecture this compilation pass generates code for (0 in the host pass).
#if defined(__CUDA_ARCH__)
inline constexpr int kEsCompiledCc = __CUDA_ARCH__ / 10;
#else
inline constexpr int kEsCompiledCc = 0;
#endif
template <typename T>
inline constexpr int kEsCellKernelMinBlocks =
    std::is_same_v<T, float> ? es_launch_row(kEsCompiledCc).cell_min_blocks_float : 1;

// Cells a thread of Bins::Piled's movable blocks takes on a device of `sms` SMs and compute
// capability `cc`: enough for the row's blocks per SM, at most kEsPiledMaxCellsPerThread.
inline int es_piled_cells_per_thread(std::int64_t num_movable, int sms, int cc) {
  const std::int64_t per_round =
      static_cast<std::int64_t>(kEsThreads) * es_launch_row(cc).piled_blocks_per_sm * std::max(sms, 1);
  const std::int64_t k = (num_movable + per_round - 1) / per_round;
  return static_cast<int>(std::clamp<std::int64_t>(k, 1, kEsPiledMaxCellsPerThread));
}

// ---- Large cells: a warp or block each, chunks, or the difference map -------------------------

// Movable large cells whose footprint may cover more than kEsChunkBins bins take a block per
// chunk of that many bins (chunked_cells.cu): one block per cell runs its bins in a serial loop
// that trails the other cells, while chunks spread a macro over the GPU; smaller cells stay in
// the warp and block paths, which they fill better. The measurements: docs/performance.md,
// "CUDA pipeline: large cells (issue 41, item 2)".
inline constexpr int kEsChunkBins = 1024;

// The difference map and summed-area tables (large_cells.cuh, O(1) memory operations per cell)
// cost whole passes over the box the cells span, where chunks cost in proportion to the cells'
// own bins: the map wins only when the movable large cells' stretched areas add up to more than
// kEsDiffMapMinAreaOverGrid times the grid's bins, which a placeable design does not reach (its
// movable area fits the region), so the default is chunks; the layout hook forces the difference
// map (tests, benchmark). Once on, every movable large cell of at least kEsDiffMapMinCellBins
// bins takes it.
inline constexpr double kEsDiffMapMinAreaOverGrid = 5.0;
inline constexpr double kEsDiffMapMinCellBins = 1024.0;
// Rows per segment of the summed-area passes' column sums (large_cells.cu).
inline constexpr int kEsDiffSegmentRows = 64;

// ---- How the density map is accumulated ---------------------------------------------------------

// 64-bit fixed-point bins (double; float after a filler bin's overflow), exact float maps (float,
// whole numbers of 2^-18 bin areas), piled movable cells into 64-bit tiles, or float maps with
// plain float atomics (deterministic = false, evaluate_async only) (rasterize.cu).
enum class Bins { Wide = 0, Float = 1, Piled = 2, FloatAtomics = 3 };
inline constexpr int kBinsKinds = 4;

// Exact float maps: an evaluate takes Bins::Piled when the previous one's max density (bin areas
// of movable and fixed charge in one bin) reached this, else the float maps. Both give the same
// bits where the float maps hold, so this is speed only: the float maps' limit (64 bin areas),
// below which their vector atomics are the cheaper path (docs/performance.md, "CUDA pipeline:
// piled cells").
inline constexpr double kPiledMinDensity = 64.0;

// 64-bit bins: two accumulator maps (movable, fillers) save a rasterize launch and a density pass
// but double the accumulator: faster on small grids, slower once the maps no longer stay in L2
// (bench_ispd/results/electrostatics.md); used up to this many bins.
inline constexpr std::int64_t kTwoMapsMaxBins = std::int64_t{1} << 20;

// Which bins each evaluate takes. float: exact float maps; after a run that flagged a bin (a sum
// that may have rounded) the same input runs again with wider bins (float maps -> piled -> 64-bit
// bins), so the result never depends on the choice; after a dense evaluate the next one starts
// piled. deterministic = false takes the same path in evaluate, the fastest whether piled or
// spread (docs/performance.md, "deterministic = false"); in evaluate_async, which cannot run again
// without the host, it takes plain float atomics where deterministic = true takes 64-bit bins.
// double: 64-bit bins.
class BinsPolicy {
 public:
  BinsPolicy() = default;
  // exact_float: float whose evaluate takes exact float maps; float_atomics_async: float with
  // deterministic = false (evaluate_async's float maps).
  BinsPolicy(bool exact_float, bool float_atomics_async)
      : exact_float_(exact_float), float_atomics_async_(float_atomics_async) {}

  // The bins of an evaluate's first run.
  Bins for_evaluate() const {
    if (!exact_float_) return float_atomics_async_ ? Bins::FloatAtomics : Bins::Wide;
    return last_max_density_ >= kPiledMinDensity ? Bins::Piled : Bins::Float;
  }
  // evaluate_async's bins: never bins that check (they would need a second run).
  Bins for_async() const {
    if (float_atomics_async_) return Bins::FloatAtomics;
    return Bins::Wide;
  }
  // Whether a run with these bins checks them (an exact float sum past 2^24: the density pass
  // writes per-block counts, finalize the rerun flag), after which evaluate runs again with wider().
  static bool checks(Bins bins) { return bins == Bins::Float || bins == Bins::Piled; }
  // Whether any run of this system checks its bins (the check buffers are made).
  bool any_checks() const { return exact_float_; }
  // Whether any run of this system takes float maps (their room in the accumulator is made).
  bool any_float_maps() const { return exact_float_ || float_atomics_async_; }
  bool exact_float() const { return exact_float_; }
  // After a flagged run: the float maps -> piled movable cells -> 64-bit bins (only a filler bin
  // past 64 bin areas goes that far).
  static Bins wider(Bins bins) { return bins == Bins::Float ? Bins::Piled : Bins::Wide; }
  // The latest evaluate's max density (for_evaluate's next choice).
  void record(double max_density) { last_max_density_ = max_density; }

 private:
  bool exact_float_ = false;
  bool float_atomics_async_ = false;
  double last_max_density_ = 0;
};

}  // namespace efield::detail
