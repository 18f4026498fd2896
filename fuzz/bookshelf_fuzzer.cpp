// libFuzzer target for the Bookshelf loader (efield::load_bookshelf's parsers and checks).
//
// One input is a whole design: the texts of its .aux, .nodes, .nets, .wts, .pl and .scl files in
// that order, separated by lines "#@@" (run_fuzz.sh makes the seeds this way from
// tests/data/bookshelf). They are served from memory under any name with the matching extension,
// so the .aux may name its files as it likes; a missing or empty part is an absent file. Loading
// must end in a Design or an efield::Error: any other exception, a crash, a leak or a sanitizer
// report is a finding. A loaded design's netlist view (placement_netlist) must keep its
// invariants: CSR spans that start at 0, never decrease and end at the pin count, each pin listed
// once under its own node, finite offsets. Every third input length also overwrites a node's
// orientation with a value outside the enum, which check_consistent must refuse.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bookshelf/file_source.hpp"
#include "bookshelf/text_reader.hpp"
#include "efield/bookshelf.hpp"
#include "efield/error.hpp"
#include "efield/log.hpp"
#include "efield/placement_netlist.hpp"

namespace {

using efield::bookshelf::iequals;

constexpr std::string_view kSeparator = "\n#@@\n";
constexpr const char* kAuxPath = "fuzz.aux";
constexpr const char* kExtensions[] = {"aux", "nodes", "nets", "wts", "pl", "scl"};
constexpr int kParts = 6;

class MemoryFiles final : public efield::bookshelf::FileSource {
 public:
  explicit MemoryFiles(std::string_view input) {
    for (int k = 0; k < kParts; ++k) {
      const std::size_t end = input.find(kSeparator);
      parts_[k] = std::string(input.substr(0, end));
      if (end == std::string_view::npos) break;
      input.remove_prefix(end + kSeparator.size());
    }
  }
  bool exists(const std::string& path) const override {
    const int k = part_of(path);
    return k >= 0 && !parts_[k].empty();
  }
  std::string read(const std::string& path, const std::string& named_by) const override {
    if (!exists(path))
      throw efield::Error(path + ": cannot open file" + (named_by.empty() ? "" : " (named in " + named_by + ")"));
    return parts_[part_of(path)];
  }

 private:
  static int part_of(const std::string& path) {
    const std::size_t dot = path.rfind('.');
    if (dot == std::string::npos) return -1;
    const std::string_view ext = std::string_view(path).substr(dot + 1);
    for (int k = 0; k < kParts; ++k)
      if (iequals(ext, kExtensions[k])) return k;
    return -1;
  }
  std::string parts_[kParts];
};

// A broken invariant is a finding: abort, which libFuzzer reports with the input.
void require(bool ok) {
  if (!ok) std::abort();
}

// CSR offsets of `count` rows over `total` entries: count + 1 entries from 0 to total, never
// decreasing.
void require_spans(const std::vector<int>& start, std::size_t count, std::size_t total) {
  require(start.size() == count + 1 && start.front() == 0 && static_cast<std::size_t>(start.back()) == total);
  for (std::size_t k = 0; k < count; ++k) require(start[k] <= start[k + 1]);
}

void check_netlist(const efield::Design& design) {
  const efield::PlacementNetlist nl = efield::placement_netlist(design);
  const std::size_t pins = design.pins.size(), nodes = static_cast<std::size_t>(design.num_nodes());
  require(nl.num_pins() == static_cast<int>(pins) && nl.num_nodes() == static_cast<int>(nodes));
  require(nl.pin_offset_x.size() == pins && nl.pin_offset_y.size() == pins && nl.node_pins.size() == pins);
  require_spans(nl.net_pin_start, nl.net_weight.size(), pins);
  require_spans(nl.node_pin_start, nodes, pins);
  std::vector<char> seen(pins, 0);
  for (std::size_t i = 0; i < nodes; ++i)
    for (int k = nl.node_pin_start[i]; k < nl.node_pin_start[i + 1]; ++k) {
      const int p = nl.node_pins[k];
      require(p >= 0 && static_cast<std::size_t>(p) < pins && !seen[p] && nl.pin_node[p] == static_cast<int>(i));
      require(k == nl.node_pin_start[i] || nl.node_pins[k - 1] < p);  // increasing pin order
      seen[p] = 1;
    }
  for (std::size_t p = 0; p < pins; ++p)
    require(std::isfinite(nl.pin_offset_x[p]) && std::isfinite(nl.pin_offset_y[p]) &&
            std::fabs(nl.pin_offset_x[p]) + std::fabs(nl.pin_offset_y[p]) ==
                std::fabs(design.pins[p].offset_x) + std::fabs(design.pins[p].offset_y));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  efield::set_log_level("off");  // the loader's warnings would flood the fuzzer's output
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const MemoryFiles files(std::string_view(reinterpret_cast<const char*>(data), size));
  efield::BookshelfLoadOptions options;
  options.allow_missing_nets = (size & 1) != 0;  // both ways of treating an absent .nets file
  try {
    efield::Design design = efield::bookshelf::load_design(kAuxPath, files, options, nullptr);
    design.check_consistent();
    const efield::PlacementInputs inputs = efield::placement_inputs(design);
    (void)inputs;
    (void)design.fixed_area_in_region();
    check_netlist(design);
    // An orientation outside the enum (a cast from an integer): must be an efield::Error.
    if (size % 3 == 0 && design.num_nodes() > 0) {
      design.orientation[size % design.num_nodes()] = static_cast<efield::Orientation>(8 + size % 200);
      bool refused = false;
      try {
        (void)efield::placement_netlist(design);
      } catch (const efield::Error&) {
        refused = true;
      }
      require(refused);
    }
  } catch (const efield::Error&) {
    // A clear error is a correct answer to a broken design.
  }
  return 0;
}
