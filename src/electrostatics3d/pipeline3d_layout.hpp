#pragma once
// Internal, for the tests and bench_electrostatics3d only (not part of the API; the library reads
// no environment for it): which stages CUDA 3D systems made from now on run. Every option is on
// by default: together they were the fastest on six of the seven shapes timed
// (bench_ispd/results/electrostatics3d.md); the tests and the benchmark switch them off one by one.
namespace efield::detail {

struct Es3DPipelineLayout {
  // float: the tile rasterize (kernels/electrostatics3d/tile_density3d.cuh): one thread per cell
  // over its whole footprint (a warp for large footprints), each contribution a whole number of
  // 2^-18 bin volumes added by float4 atomics into 2 x 2-bin x-y tiles per z layer; a bin past
  // 2^24 units runs evaluate again with 64-bit tiles holding the same whole numbers. Off: a
  // thread per cell with one 64-bit fixed-point atomic (2^-32 bin volumes) per bin. Ignored in
  // double.
  bool tile_rasterize = true;
  // With tile_rasterize: always the 64-bit tiles (the rerun's bins: the same bits as the float
  // tiles wherever those hold; the tests compare the two).
  bool wide_tiles = false;
  // GradientScale::DreamPlace with every bin count >= 2: the three field inverses as one batched
  // transform (kernels/electrostatics3d/field_inverse3d.cuh) that writes the gather's packed map
  // itself. Off: three Plan3D Idct runs and the pack pass.
  bool batched_field_inverse = true;
  // With batched_field_inverse: the spectral pass folded into its preprocess (one thread per group
  // of mirrored indices makes the three fields' inputs of its eight members and their energy
  // terms), so the three input maps are neither written nor read. The energy's bits may differ
  // from the spectral pass's (the same terms in another fixed order).
  bool fused_spectral_inverse = true;
  // With all three above (float): the forward DCT folded in too: the density pass writes rho in
  // the Makhoul order, the pipeline's own cuFFT R2C transforms it, and the group kernel starts
  // with the forward postprocess; neither the reorder pass nor the coefficient map remain.
  bool fused_forward = true;
};

// Systems constructed after the call use `layout` until the next call; returns the one before.
Es3DPipelineLayout set_es3d_pipeline_layout(const Es3DPipelineLayout& layout);
Es3DPipelineLayout es3d_pipeline_layout();

}  // namespace efield::detail
