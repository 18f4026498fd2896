#pragma once
// Internal, for the tests and bench_electrostatics only (not part of the API; the library reads no
// environment for it): how CUDA electrostatic systems made from now on accumulate the density map.
// Left at its default, a system picks by precision and grid size; the tests force each layout to
// check that all give the same results (the same bits for the same kind of bins), and the
// benchmark times them side by side.
namespace efield::detail {

struct EsPipelineLayout {
  // 64-bit fixed-point bins: one accumulator map for movable cells and fillers, or one map each
  // (one rasterize launch and one density pass fewer, twice the accumulator). BySize: two maps up
  // to 2^20 bins.
  enum class Maps { BySize, One, Two } maps = Maps::BySize;
  // float, deterministic: 64-bit fixed-point bins instead of exact float maps (the bins evaluate
  // falls back to after a pile-up).
  bool wide_float_bins = false;
  // Movable large cells: as pipeline_policy.cuh decides, always one block (or warp) per cell, or
  // every movable large cell chunked, or every one by the difference map (large_cells.cuh).
  enum class LargeCells { ByPolicy, Blocks, Chunks, DifferenceMap } large_cells = LargeCells::ByPolicy;
};

// Systems constructed after the call use `layout` until the next call; returns the one before.
EsPipelineLayout set_es_pipeline_layout(const EsPipelineLayout& layout);
EsPipelineLayout es_pipeline_layout();

}  // namespace efield::detail
