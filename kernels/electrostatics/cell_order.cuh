#pragma once
// Internal: the cells in bin order for Bins::Windows: a permutation of the cells (movable cells
// first, then fillers, each part sorted by the Morton code of the 2^kEsOrderGranuleLog2-bin square
// that holds its footprint's first bin; large cells at the end of their part), so that a block of
// consecutive entries covers a small patch of bins. Sorted with CUB's radix sort from the
// positions of an evaluate every few evaluates (kEsResortEvaluates): a placer moves its cells a
// little per iteration, and an older order only leaves a few more contributions outside their
// block's window; any permutation gives the same sums. Buffers and CUB's temporary storage are
// made at construction. Kernels: cell_order.cu.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "common/cuda_check.cuh"
#include "electrostatics/cell_table.cuh"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/es_kernels.cuh"

namespace efield::detail {

// Bins of a side of the square a key tells apart (16 x 16: a block of kEsThreads *
// kEsWindowCellsPerThread spread cells covers a few of them; 2048 x 2048 bins take 15-bit keys,
// two radix passes).
inline constexpr int kEsOrderGranuleLog2 = 4;

template <typename T>
struct CellOrderArgs {
  CellGeometry<T> g;
  const T* x;
  const T* y;
  const T* w;
  const T* h;
  unsigned int* keys;  // [num_cells]
  int shift;           // bin index >> shift: the square's coordinate
  int code_bits;       // bits of the Morton code; the part (0 movable, 1 filler) above them
};
// keys[c] for every cell c.
template <typename T>
void launch_cell_order_keys(const CellOrderArgs<T>& a, cudaStream_t stream);
// CUB's temporary bytes for sort_cell_order on n keys.
std::size_t cell_order_sort_bytes(int n);
// order = cells sorted by keys (a stable sort of `identity`), bits [0, end_bit) of the keys.
void sort_cell_order(void* temp, std::size_t temp_bytes, const unsigned int* keys, unsigned int* keys_sorted,
                     const int* identity, int* order, int n, int end_bit, cudaStream_t stream);

template <typename T>
class CellOrder {
 public:
  CellOrder() = default;
  // resort_every: evaluates between sorts (<= 0: only the first).
  CellOrder(const ElectrostaticDesign& d, int resort_every) : n_(d.num_cells()), resort_every_(resort_every) {
    const int side = std::max(d.options.num_bins_x, d.options.num_bins_y);
    shift_ = kEsOrderGranuleLog2;
    while (((side - 1) >> shift_) >= (1 << 15)) ++shift_;  // codes of at most 30 bits, the part bit above
    int coord_bits = 0;
    while (((side - 1) >> shift_) >> coord_bits) ++coord_bits;
    code_bits_ = 2 * coord_bits;
    keys_ = EsDeviceArray<unsigned int>(n_);
    keys_sorted_ = EsDeviceArray<unsigned int>(n_);
    order_ = EsDeviceArray<int>(n_);
    std::vector<int> identity(static_cast<std::size_t>(n_));
    std::iota(identity.begin(), identity.end(), 0);
    identity_ = EsDeviceArray<int>(n_);
    es_upload(identity_.get(), identity.data(), identity.size());
    es_upload(order_.get(), identity.data(), identity.size());  // a valid order before the first sort
    temp_bytes_ = cell_order_sort_bytes(static_cast<int>(n_));
    temp_ = EsDeviceArray<unsigned char>(static_cast<std::int64_t>(temp_bytes_));
  }

  // Sorts the cells at `at`'s positions when this evaluate is due one (the first, then every
  // resort_every-th); counts the evaluate.
  void enqueue_if_due(const CellTable<T>& cells, const CellArrays<T>& at, cudaStream_t stream) {
    const bool due = evaluates_ == 0 || (resort_every_ > 0 && evaluates_ % resort_every_ == 0);
    ++evaluates_;
    if (!due || n_ == 0) return;
    CellOrderArgs<T> a{};
    a.g = cells.geometry(at.filler_offset);
    a.x = at.x;
    a.y = at.y;
    a.w = cells.widths();
    a.h = cells.heights();
    a.keys = keys_.get();
    a.shift = shift_;
    a.code_bits = code_bits_;
    launch_cell_order_keys(a, stream);
    sort_cell_order(temp_.get(), temp_bytes_, keys_.get(), keys_sorted_.get(), identity_.get(), order_.get(),
                    static_cast<int>(n_), code_bits_ + 1, stream);
  }
  // The next enqueue_if_due sorts (an evaluate with other bins ran: a pile-up, after which the
  // cells spread far from where the order saw them).
  void restart() { evaluates_ = 0; }
  // The arrays of a Bins::Windows run: `at` with the order.
  CellArrays<T> attach(CellArrays<T> at) const {
    at.order = order_.get();
    return at;
  }

 private:
  std::int64_t n_ = 0;
  int resort_every_ = 0;
  int shift_ = kEsOrderGranuleLog2, code_bits_ = 0;
  std::int64_t evaluates_ = 0;
  EsDeviceArray<unsigned int> keys_, keys_sorted_;
  EsDeviceArray<int> identity_, order_;
  EsDeviceArray<unsigned char> temp_;
  std::size_t temp_bytes_ = 0;
};

}  // namespace efield::detail
