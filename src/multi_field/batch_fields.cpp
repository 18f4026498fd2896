// A batch of independent placements of one design as FieldSpecs: member k is one field whose
// cells sit at entries [k * stride, k * stride + n + f) of the shared arrays.
#include <limits>
#include <string>
#include <vector>

#include "efield/error.hpp"
#include "efield/multi_field_system.hpp"

namespace efield {

std::vector<FieldSpec> make_batch_fields(int count, const CellSizes& movable, const CellSizes& fillers,
                                         const FixedCells& fixed, double target_density, std::int64_t stride) {
  if (count < 1) throw Error("make_batch_fields: count " + std::to_string(count) + " must be >= 1");
  if (movable.widths.size() != movable.heights.size() || fillers.widths.size() != fillers.heights.size())
    throw Error("make_batch_fields: widths and heights differ in count");
  const std::int64_t n = static_cast<std::int64_t>(movable.widths.size());
  const std::int64_t f = static_cast<std::int64_t>(fillers.widths.size());
  if (stride == -1) stride = n + f;
  if (stride < n + f)
    throw Error("make_batch_fields: stride " + std::to_string(stride) + " is below the " + std::to_string(n + f) +
                " cells of a member (need -1 or >= num_movable + num_fillers)");
  if (stride > 0 && count - 1 > (std::numeric_limits<std::int64_t>::max() - (n + f)) / stride)
    throw Error("make_batch_fields: count * stride overflows");
  std::vector<FieldSpec> fields(static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) {
    FieldSpec& field = fields[static_cast<size_t>(k)];
    const std::int64_t base = static_cast<std::int64_t>(k) * stride;
    field.movable_index.resize(static_cast<size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) field.movable_index[static_cast<size_t>(i)] = base + i;
    field.filler_index.resize(static_cast<size_t>(f));
    for (std::int64_t j = 0; j < f; ++j) field.filler_index[static_cast<size_t>(j)] = base + n + j;
    field.movable = movable;
    field.fillers = fillers;
    field.fixed = fixed;
    field.target_density = target_density;
  }
  return fields;
}

}  // namespace efield
