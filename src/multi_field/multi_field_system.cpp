// efield::MultiFieldSystem: validation of the fields' indices, the slot layout, and dispatch to
// the CPU or CUDA backend.
#include "efield/multi_field_system.hpp"

#include <cmath>
#include <cstdio>
#include <type_traits>
#include <limits>
#include <string>
#include <utility>

#include "common/log.hpp"
#include "efield/error.hpp"
#include "multi_field/multi_field_backend.hpp"

namespace efield {
namespace detail {
namespace {

constexpr const char* kWho = "MultiFieldSystem";
// The owner table takes 4 bytes per entry; beyond this a caller surely passed a wrong count.
constexpr std::int64_t kMaxEntries = std::int64_t{1} << 34;
// Every field's system takes at most 2^31 - 1 cells, and the slots of all fields index one array.
constexpr std::int64_t kMaxSlots = std::numeric_limits<std::int32_t>::max();

std::string field_name(size_t k) { return std::string(kWho) + ": field " + std::to_string(k); }

void check_options(const MultiFieldOptions& options) {
  const ElectrostaticOptions defaults;
  const ElectrostaticOptions& s = options.system;
  if (s.target_density != defaults.target_density)
    throw Error(std::string(kWho) + ": options.system.target_density must stay 1 (each field's target density is "
                "FieldSpec::target_density)");
  if (s.filler_offset != defaults.filler_offset)
    throw Error(std::string(kWho) + ": options.system.filler_offset must stay -1 (each filler's entry is in "
                "FieldSpec::filler_index)");
  if (s.zero_gap_gradient != defaults.zero_gap_gradient)
    throw Error(std::string(kWho) + ": options.system.zero_gap_gradient must stay false (use "
                "MultiFieldOptions::zero_other_entries)");
  if (options.pipeline != MultiFieldPipeline::Auto && options.pipeline != MultiFieldPipeline::PerField &&
      options.pipeline != MultiFieldPipeline::Batched)
    throw Error(std::string(kWho) + ": options.pipeline " + std::to_string(static_cast<int>(options.pipeline)) +
                " is not a MultiFieldPipeline (Auto, PerField or Batched)");
  if (options.pipeline == MultiFieldPipeline::Batched) {
    if (s.backend == Backend::Cpu)
      throw Error(std::string(kWho) + ": options.pipeline = Batched runs on the CUDA backend only, but "
                  "options.system.backend is Cpu (use PerField, or Backend::Cuda or Auto)");
    if (s.gradient_scale == GradientScale::Exact)
      throw Error(std::string(kWho) + ": options.pipeline = Batched has no GradientScale::Exact (use PerField for "
                  "the exact gradient)");
  }
  if (options.num_entries < 0 || options.num_entries > kMaxEntries)
    throw Error(std::string(kWho) + ": num_entries " + std::to_string(options.num_entries) + " is outside 0.." +
                std::to_string(kMaxEntries));
}

// Marks each index of one list as owned by `field`; an entry out of range or owned already throws.
void claim(const std::vector<std::int64_t>& index, const char* kind, size_t field, std::int64_t num_entries,
           std::vector<std::int32_t>& owner, std::vector<char>& owner_kind) {
  for (size_t i = 0; i < index.size(); ++i) {
    const std::int64_t e = index[i];
    if (e < 0 || e >= num_entries)
      throw Error(field_name(field) + ": " + kind + "_index[" + std::to_string(i) + "] = " + std::to_string(e) +
                  " is outside [0, num_entries = " + std::to_string(num_entries) + ")");
    if (owner[static_cast<size_t>(e)] >= 0)
      throw Error(field_name(field) + ": " + kind + "_index[" + std::to_string(i) + "] = entry " + std::to_string(e) +
                  ", which field " + std::to_string(owner[static_cast<size_t>(e)]) + " already owns (as a " +
                  (owner_kind[static_cast<size_t>(e)] == 'm' ? "movable cell" : "filler") +
                  "); every entry belongs to at most one cell of one field");
    owner[static_cast<size_t>(e)] = static_cast<std::int32_t>(field);
    owner_kind[static_cast<size_t>(e)] = kind[0];
  }
}

}  // namespace

MultiFieldLayout make_multi_field_layout(const MultiFieldOptions& options, std::vector<FieldSpec> fields) {
  check_options(options);
  if (fields.empty()) throw Error(std::string(kWho) + ": no fields (give at least one FieldSpec)");
  if (fields.size() > static_cast<size_t>(std::numeric_limits<std::int32_t>::max()))
    throw Error(std::string(kWho) + ": too many fields");
  MultiFieldLayout l;
  l.options = options;
  l.offset.assign(1, 0);
  for (size_t k = 0; k < fields.size(); ++k) {
    const FieldSpec& f = fields[k];
    if (f.movable_index.size() != f.movable.widths.size())
      throw Error(field_name(k) + ": movable_index has " + std::to_string(f.movable_index.size()) + " entries for " +
                  std::to_string(f.movable.widths.size()) + " movable widths (give one per cell)");
    if (f.filler_index.size() != f.fillers.widths.size())
      throw Error(field_name(k) + ": filler_index has " + std::to_string(f.filler_index.size()) + " entries for " +
                  std::to_string(f.fillers.widths.size()) + " filler widths (give one per filler)");
    const std::int64_t slots = l.offset.back() + static_cast<std::int64_t>(f.movable_index.size() + f.filler_index.size());
    if (slots > kMaxSlots)
      throw Error(std::string(kWho) + ": the fields hold more than 2^31 - 1 cells in all");
    l.offset.push_back(slots);
  }
  std::vector<std::int32_t> owner(static_cast<size_t>(options.num_entries), -1);
  std::vector<char> owner_kind(owner.size(), 0);
  for (size_t k = 0; k < fields.size(); ++k) {
    claim(fields[k].movable_index, "movable", k, options.num_entries, owner, owner_kind);
    claim(fields[k].filler_index, "filler", k, options.num_entries, owner, owner_kind);
  }
  l.slot_entry.resize(static_cast<size_t>(l.num_slots()));
  l.slot_field.resize(l.slot_entry.size());
  for (size_t k = 0; k < fields.size(); ++k) {
    size_t s = static_cast<size_t>(l.offset[k]);
    for (const auto* index : {&fields[k].movable_index, &fields[k].filler_index})
      for (std::int64_t e : *index) l.slot_field[s] = static_cast<std::int32_t>(k), l.slot_entry[s++] = e;
  }
  if (options.zero_other_entries)
    for (size_t e = 0; e < owner.size(); ++e)
      if (owner[e] < 0) l.unowned.push_back(static_cast<std::int64_t>(e));
  l.fields = std::move(fields);
  return l;
}

ElectrostaticOptions field_options(const MultiFieldLayout& layout, int k, Stream stream, bool own_graphs) {
  ElectrostaticOptions o = layout.options.system;
  o.target_density = layout.fields[static_cast<size_t>(k)].target_density;
  o.filler_offset = -1;  // the field's fillers right after its movable cells in its slice
  o.stream = stream;
  o.use_cuda_graph = own_graphs && o.use_cuda_graph;
  return o;
}

namespace {
// make(): field k's system or design; an efield::Error from it names the field.
template <typename Make>
auto naming_the_field(int k, Make make) {
  try {
    return make();
  } catch (const Error& e) {
    throw Error(field_name(static_cast<size_t>(k)) + ": " + e.what());
  }
}
}  // namespace

ElectrostaticSystem make_field_system(const MultiFieldLayout& layout, int k, Stream stream, bool own_graphs) {
  const FieldSpec& f = layout.fields[static_cast<size_t>(k)];
  return naming_the_field(k, [&] {
    return ElectrostaticSystem(field_options(layout, k, stream, own_graphs), f.movable, f.fillers, f.fixed);
  });
}

ElectrostaticDesign make_field_design(const MultiFieldLayout& layout, int k) {
  const FieldSpec& f = layout.fields[static_cast<size_t>(k)];
  return naming_the_field(
      k, [&] { return make_design(field_options(layout, k, nullptr, false), f.movable, f.fillers, f.fixed); });
}

const std::vector<double>& resolve_weights(const MultiEvaluateOptions& options, const std::vector<double>& ones,
                                           Precision precision) {
  const size_t num_fields = ones.size();
  if (options.weights.empty()) return ones;
  if (options.weights.size() != num_fields)
    throw Error(std::string(kWho) + "::evaluate: " + std::to_string(options.weights.size()) + " weights for " +
                std::to_string(num_fields) + " fields (give one per field, or none)");
  const double largest = precision == Precision::Float ? static_cast<double>(std::numeric_limits<float>::max())
                                                       : std::numeric_limits<double>::max();
  for (size_t k = 0; k < options.weights.size(); ++k) {
    const double w = options.weights[k];
    if (!std::isfinite(w) || std::fabs(w) > largest) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", w);
      throw Error(std::string(kWho) + "::evaluate: weights[" + std::to_string(k) + "] = " + text +
                  (std::isfinite(w) ? " is beyond the range of float (this system's precision)" : " is not finite"));
    }
  }
  return options.weights;
}

}  // namespace detail

namespace detail {
MultiFieldPipeline resolve_pipeline(const MultiFieldOptions& options, Backend backend, int num_fields) {
  if (options.pipeline != MultiFieldPipeline::Auto) return options.pipeline;
  const bool batched = backend == Backend::Cuda && num_fields >= 2 &&
                       options.system.gradient_scale != GradientScale::Exact;
  return batched ? MultiFieldPipeline::Batched : MultiFieldPipeline::PerField;
}
}  // namespace detail

MultiFieldSystem::MultiFieldSystem(const MultiFieldOptions& options, std::vector<FieldSpec> fields) {
  detail::MultiFieldLayout layout = detail::make_multi_field_layout(options, std::move(fields));
  const Backend backend = resolve_backend(options.system.backend);
  layout.options.pipeline = detail::resolve_pipeline(options, backend, layout.num_fields());
  detail::log().debug("MultiFieldSystem: {} fields, {} cells, {} entries, backend {}", layout.num_fields(),
                      layout.num_slots(), options.num_entries, to_string(backend));
  impl_ = backend == Backend::Cuda ? detail::make_cuda_multi_field(std::move(layout))
                                   : detail::make_cpu_multi_field(std::move(layout));
}

MultiFieldSystem::~MultiFieldSystem() = default;
MultiFieldSystem::MultiFieldSystem(MultiFieldSystem&&) noexcept = default;
MultiFieldSystem& MultiFieldSystem::operator=(MultiFieldSystem&&) noexcept = default;

namespace {
template <typename T>
void evaluate_checked(detail::MultiFieldBackend& impl, const T* x, const T* y, T* gx, T* gy,
                      std::vector<EvaluateResult>& results, const MultiEvaluateOptions& options) {
  const detail::MultiFieldLayout& l = impl.layout();
  const Precision given = std::is_same_v<T, float> ? Precision::Float : Precision::Double;
  if (l.options.system.precision != given)
    throw Error(std::string("MultiFieldSystem::evaluate: ") + (given == Precision::Float ? "float" : "double") +
                " pointers given, but the system was built with precision " +
                (given == Precision::Float ? "double" : "float"));
  const std::vector<double>& weights = detail::resolve_weights(options, impl.unit_weights(), given);
  if (l.options.num_entries > 0 && (!x || !y || !gx || !gy))
    throw Error("MultiFieldSystem::evaluate: a position or gradient pointer is null");
  results.resize(static_cast<size_t>(l.num_fields()));
  impl.evaluate(x, y, gx, gy, weights, options.accumulate, results);
}
}  // namespace

std::vector<EvaluateResult> MultiFieldSystem::evaluate(const float* x, const float* y, float* grad_x, float* grad_y,
                                                       const MultiEvaluateOptions& options) {
  std::vector<EvaluateResult> results;
  evaluate_checked(impl(), x, y, grad_x, grad_y, results, options);
  return results;
}
std::vector<EvaluateResult> MultiFieldSystem::evaluate(const double* x, const double* y, double* grad_x,
                                                       double* grad_y, const MultiEvaluateOptions& options) {
  std::vector<EvaluateResult> results;
  evaluate_checked(impl(), x, y, grad_x, grad_y, results, options);
  return results;
}
void MultiFieldSystem::evaluate(const float* x, const float* y, float* grad_x, float* grad_y,
                                std::vector<EvaluateResult>& results, const MultiEvaluateOptions& options) {
  evaluate_checked(impl(), x, y, grad_x, grad_y, results, options);
}
void MultiFieldSystem::evaluate(const double* x, const double* y, double* grad_x, double* grad_y,
                                std::vector<EvaluateResult>& results, const MultiEvaluateOptions& options) {
  evaluate_checked(impl(), x, y, grad_x, grad_y, results, options);
}

void MultiFieldSystem::set_stream(Stream stream) { impl().set_stream(stream); }

int MultiFieldSystem::num_fields() const noexcept { return impl_ ? impl_->layout().num_fields() : 0; }
namespace {
void check_field_index(const char* who, int k, int num_fields) {
  if (k < 0 || k >= num_fields)
    throw Error(std::string("MultiFieldSystem::") + who + ": " + std::to_string(k) + " is outside 0.." +
                std::to_string(num_fields - 1));
}
}  // namespace

const ElectrostaticSystem& MultiFieldSystem::field(int k) const {
  check_field_index("field", k, impl().layout().num_fields());
  if (!impl().has_field_systems())
    throw Error("MultiFieldSystem::field: the batched pipeline (MultiFieldPipeline::Batched) keeps no per-field "
                "systems (density_map(k) gives a field's map; build with PerField for the others)");
  return impl().field(k);
}
std::vector<double> MultiFieldSystem::density_map(int k) const {
  check_field_index("density_map", k, impl().layout().num_fields());
  return impl().density_map(k);
}
const FieldSpec& MultiFieldSystem::field_spec(int k) const {
  check_field_index("field_spec", k, impl().layout().num_fields());
  return impl().layout().fields[static_cast<size_t>(k)];
}
std::int64_t MultiFieldSystem::num_entries() const noexcept { return impl_ ? impl_->layout().options.num_entries : 0; }
const MultiFieldOptions& MultiFieldSystem::options() const noexcept {
  static const MultiFieldOptions moved_from;
  return impl_ ? impl_->layout().options : moved_from;
}
Backend MultiFieldSystem::backend() const noexcept { return impl_ ? impl_->backend() : Backend::Auto; }
int MultiFieldSystem::device() const noexcept { return impl_ ? impl_->device() : -1; }

detail::MultiFieldBackend& MultiFieldSystem::impl() const {
  if (!impl_) throw Error("MultiFieldSystem: this system was moved from (it holds no fields any more)");
  return *impl_;
}

}  // namespace efield
