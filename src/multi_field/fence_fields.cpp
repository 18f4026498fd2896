// DREAMPlace 3.0's fence-region fields as FieldSpecs (docs/math.md 2.11): K fences give K + 1
// fields over one bin grid, each with its own cells, fillers, blockages and target density.
#include <string>
#include <vector>

#include "efield/error.hpp"
#include "efield/multi_field_system.hpp"

namespace efield {
namespace {

constexpr const char* kWho = "make_fence_fields";

// Validates the inputs the way make_region_fillers does (the same checks, run by it: region ids,
// fences, cells that do not fit their fence, fields without cells), with each field's td as given.
void check_inputs(const CellSizes& movable, const std::vector<int>& region_id, const std::vector<FenceRegion>& fences,
                  const FixedCells& fixed, double xl, double yl, double xh, double yh,
                  const std::vector<RegionFillerSpec>& fillers) {
  if (fillers.size() != fences.size() + 1)
    throw Error(std::string(kWho) + ": " + std::to_string(fillers.size()) + " filler specs for " +
                std::to_string(fences.size() + 1) + " fields (K fences + the default field; make_region_fillers "
                "gives them)");
  RegionFillerOptions options;
  for (size_t k = 0; k < fillers.size(); ++k) {
    const RegionFillerSpec& f = fillers[k];
    if (!(f.target_density > 0 && f.target_density <= 1))
      throw Error(std::string(kWho) + ": fillers[" + std::to_string(k) + "].target_density " +
                  std::to_string(f.target_density) + " is outside (0, 1]");
    if (f.fillers.count < 0)
      throw Error(std::string(kWho) + ": fillers[" + std::to_string(k) + "].fillers.count is negative");
    options.field_target_density.push_back(f.target_density);
  }
  try {
    make_region_fillers(movable, region_id, fences, fixed, xl, yl, xh, yh, options);
  } catch (const Error& e) {
    throw Error(std::string(kWho) + ": " + e.what());
  }
}

}  // namespace

std::int64_t fence_fields_num_entries(std::int64_t num_movable, const std::vector<RegionFillerSpec>& fillers,
                                      const FenceFieldLayout& layout) {
  std::int64_t total = 0;
  for (const RegionFillerSpec& f : fillers) total += f.fillers.count;
  const std::int64_t offset = layout.filler_offset < 0 ? num_movable : layout.filler_offset;
  return layout.num_entries < 0 ? offset + total : layout.num_entries;
}

std::vector<FieldSpec> make_fence_fields(const CellSizes& movable, const std::vector<int>& region_id,
                                         const std::vector<FenceRegion>& fences, const FixedCells& fixed, double xl,
                                         double yl, double xh, double yh, const std::vector<RegionFillerSpec>& fillers,
                                         const FenceFieldLayout& layout) {
  check_inputs(movable, region_id, fences, fixed, xl, yl, xh, yh, fillers);
  const std::int64_t n = static_cast<std::int64_t>(movable.widths.size());
  const size_t K = fences.size();
  if (layout.filler_offset >= 0 && layout.filler_offset < n)
    throw Error(std::string(kWho) + ": layout.filler_offset " + std::to_string(layout.filler_offset) +
                " overlaps the " + std::to_string(n) + " movable cells (need -1 or >= num_movable)");
  const std::int64_t offset = layout.filler_offset < 0 ? n : layout.filler_offset;
  const std::int64_t needed = fence_fields_num_entries(n, fillers, FenceFieldLayout{-1, offset});
  if (layout.num_entries >= 0 && layout.num_entries < needed)
    throw Error(std::string(kWho) + ": layout.num_entries " + std::to_string(layout.num_entries) + " is below the " +
                std::to_string(needed) + " entries the cells and fillers take");

  std::vector<FieldSpec> fields(K + 1);
  const bool masked = !movable.movable_macro_mask.empty();
  for (std::int64_t i = 0; i < n; ++i) {
    const int id = region_id.empty() ? static_cast<int>(K) : region_id[static_cast<size_t>(i)];
    const size_t k = (id >= 0 && static_cast<size_t>(id) < K) ? static_cast<size_t>(id) : K;  // checked above
    FieldSpec& f = fields[k];
    f.movable_index.push_back(i);
    f.movable.widths.push_back(movable.widths[static_cast<size_t>(i)]);
    f.movable.heights.push_back(movable.heights[static_cast<size_t>(i)]);
    if (masked) f.movable.movable_macro_mask.push_back(movable.movable_macro_mask[static_cast<size_t>(i)]);
  }
  std::int64_t next = offset;
  for (size_t k = 0; k <= K; ++k) {
    FieldSpec& f = fields[k];
    f.target_density = fillers[k].target_density;
    f.fillers = fillers[k].fillers.sizes();
    for (std::int64_t j = 0; j < fillers[k].fillers.count; ++j) f.filler_index.push_back(next++);
    f.fixed = fixed;
    for (const Rect& r : fence_blockages(static_cast<int>(k), fences, fixed, xl, yl, xh, yh)) {
      f.fixed.x.push_back(r.xl);
      f.fixed.y.push_back(r.yl);
      f.fixed.widths.push_back(r.xh - r.xl);
      f.fixed.heights.push_back(r.yh - r.yl);
    }
  }
  return fields;
}

}  // namespace efield
