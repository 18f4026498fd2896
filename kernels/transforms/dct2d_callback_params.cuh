#pragma once
// What the cuFFT LTO callbacks of the two-pass Plan2D (dct2d_callbacks.cu) read through
// callerInfo. One instance lives in device memory per plan, made at construction; only `in` and
// `out` change per execute (updated in stream order by a one-thread kernel), because cuFFT fixes
// the callerInfo pointer at planning time and the user's arrays must never be cuFFT's own
// input/output (cuFFT may use those as workspace).
// Plain C++ so that both the library (nvcc) and the LTO-IR build of the callbacks include it.
#include "math/complex.hpp"

namespace efield::detail {

template <typename T>
struct Dct2dCallbackParams {
  const T* in;              // the caller's input (per execute)
  T* out;                   // the caller's output (per execute)
  T* scratch;               // rows x cols reals between the two passes (plan-owned)
  const Complex<T>* t_rows; // quarter_twiddles(rows): axis 0
  const Complex<T>* t_cols; // quarter_twiddles(cols): axis 1
  int rows;                 // M
  int cols;                 // N
  int sine_rows;            // inverse: idxst along axis 0
  int sine_cols;            // inverse: idxst along axis 1
  T zero_below;             // forward: PlanOptions::zero_below (0 keeps everything)
};

// Symbol names of the callbacks in the embedded LTO-IR fatbin (dct2d_callbacks_lto.cuh),
// suffixed _f / _d for float / double.
//   fwd_rows_load   pass 1 of dct2 (R2C along rows): x at the Makhoul position of both axes
//   fwd_rows_store  pass 1 of dct2: two row-DCT outputs into scratch
//   fwd_cols_store  pass 2 of dct2 (R2C along columns): two column-DCT outputs into out
//   inv_cols_load   pass 1 of the inverses (C2R along columns): the axis-0 preprocess from in
//   inv_rows_load   pass 2 of the inverses (C2R along rows): the axis-1 preprocess from scratch
//   inv_rows_store  pass 2 of the inverses: inverse Makhoul reorder of both axes (+ signs)

}  // namespace efield::detail
