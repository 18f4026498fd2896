#pragma once
// Internal: which movable large cells leave the warp and block lists of CellTable for the paths of
// large_cells.cuh, and their lists on the device: the difference-map cells, and the chunked cells
// with their chunks (a block each: (cell, first bin) items, and each cell's first chunk). The
// choice depends on sizes only (pipeline_policy.cuh; the layout hook may force a path); the
// buffers are made at construction, so a size update allocates nothing: a cell that no longer
// fits the chunk room stays in the block list.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "electrostatics/backend.hpp"
#include "electrostatics/cell_layout.hpp"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/pipeline_layout.hpp"
#include "electrostatics/pipeline_policy.cuh"

namespace efield::detail {

template <typename T>
class LargeCellTable {
 public:
  using Mode = EsPipelineLayout::LargeCells;
  LargeCellTable() = default;
  LargeCellTable(const CellGeometry<T>& g, const ElectrostaticDesign& d, Mode mode) : g_(g), mode_(mode) {
    const std::int64_t nm = d.num_movable();
    std::int64_t chunks = 0;
    double total = 0;
    for (std::int64_t c = 0; c < nm; ++c) {
      const T w = static_cast<T>(d.width(c)), h = static_cast<T>(d.height(c));
      if (!is_large_cell(g_, w, h)) continue;
      total += static_cast<double>(stretched_bins(w, h));
      chunks += chunks_of(w, h);
    }
    const double bar = kEsDiffMapMinAreaOverGrid * static_cast<double>(g_.M) * g_.N;
    diff_on_ = mode_ == Mode::DifferenceMap || (mode_ == Mode::ByPolicy && total >= bar);
    const std::int64_t cells = nm > 0 ? nm : 1;
    if (diff_on_) {
      diff_ = EsDeviceArray<int>(cells);
      box_ = EsDeviceArray<int>(4);
    }
    if (mode_ == Mode::ByPolicy || mode_ == Mode::Chunks) {
      capacity_ = static_cast<int>(std::min<std::int64_t>(
          chunks + static_cast<std::int64_t>(g_.M) * g_.N / kEsChunkBins + 64, std::int64_t{1} << 30));
      items_ = EsDeviceArray<int2>(capacity_);
      chunk_cells_ = EsDeviceArray<int>(cells);
      first_chunk_ = EsDeviceArray<int>(cells + 1);
    }
  }

  // Before listing the cells (CellTable::load_sizes).
  void clear() {
    diff_host_.clear();
    chunk_cells_host_.clear();
    items_host_.clear();
    first_host_.clear();
  }
  // Whether movable large cell c of size (w, h) takes one of these paths (it is then listed here).
  bool take(int c, T w, T h) {
    if (diff_on_ && (mode_ == Mode::DifferenceMap || stretched_bins(w, h) >= static_cast<T>(kEsDiffMapMinCellBins))) {
      diff_host_.push_back(c);
      return true;
    }
    if (capacity_ == 0) return false;
    const int n = chunks_of(w, h);
    if (mode_ != Mode::Chunks && n < 2) return false;  // one chunk: the block path is as good
    if (static_cast<std::int64_t>(items_host_.size()) + n > capacity_) return false;
    first_host_.push_back(static_cast<int>(items_host_.size()));
    for (int k = 0; k < n; ++k)
      items_host_.push_back(make_int2(static_cast<int>(chunk_cells_host_.size()), k * kEsChunkBins));
    chunk_cells_host_.push_back(c);
    return true;
  }
  // After listing: the lists to the device.
  void upload() {
    num_diff_ = static_cast<int>(diff_host_.size());
    num_chunk_cells_ = static_cast<int>(chunk_cells_host_.size());
    num_chunks_ = static_cast<int>(items_host_.size());
    if (num_diff_ > 0) es_upload(diff_.get(), diff_host_.data(), diff_host_.size());
    if (num_chunk_cells_ > 0) {
      first_host_.push_back(num_chunks_);
      es_upload(chunk_cells_.get(), chunk_cells_host_.data(), chunk_cells_host_.size());
      es_upload(first_chunk_.get(), first_host_.data(), first_host_.size());
      es_upload(items_.get(), items_host_.data(), items_host_.size());
    }
  }

  bool diff_enabled() const { return diff_on_; }
  const int* diff_cells() const { return diff_.get(); }
  int num_diff_cells() const { return num_diff_; }
  int* diff_box() const { return box_.get(); }  // [4], written by the density part each evaluate
  int chunk_capacity() const { return capacity_; }
  const int* chunk_cells() const { return chunk_cells_.get(); }
  const int2* chunk_items() const { return items_.get(); }
  const int* chunk_first() const { return first_chunk_.get(); }
  int num_chunk_cells() const { return num_chunk_cells_; }
  int num_chunks() const { return num_chunks_; }

 private:
  // The stretched area in bins, and the chunks of kEsChunkBins that cover the most bins the
  // footprint can touch (its span plus 3 bins a side for the clamped, unaligned ends).
  T stretched_bins(T w, T h) const {
    return (w > g_.min_w ? w : g_.min_w) * g_.inv_bx * ((h > g_.min_h ? h : g_.min_h) * g_.inv_by);
  }
  int chunks_of(T w, T h) const {
    const double along_x = std::floor(static_cast<double>((w > g_.min_w ? w : g_.min_w) * g_.inv_bx)) + 3;
    const double along_y = std::floor(static_cast<double>((h > g_.min_h ? h : g_.min_h) * g_.inv_by)) + 3;
    const double bins = std::min(along_x, static_cast<double>(g_.M)) * std::min(along_y, static_cast<double>(g_.N));
    return static_cast<int>(std::ceil(bins / kEsChunkBins));
  }

  CellGeometry<T> g_;
  Mode mode_ = Mode::ByPolicy;
  bool diff_on_ = false;
  int capacity_ = 0;
  EsDeviceArray<int> diff_, box_, chunk_cells_, first_chunk_;
  EsDeviceArray<int2> items_;
  std::vector<int> diff_host_, chunk_cells_host_, first_host_;
  std::vector<int2> items_host_;
  int num_diff_ = 0, num_chunk_cells_ = 0, num_chunks_ = 0;
};

}  // namespace efield::detail
