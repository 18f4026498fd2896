// libFuzzer target for the Bookshelf loader (efield::load_bookshelf's parsers and checks).
//
// One input is a whole design: the texts of its .aux, .nodes, .nets, .wts, .pl and .scl files in
// that order, separated by lines "#@@" (run_fuzz.sh makes the seeds this way from
// tests/data/bookshelf). They are served from memory under any name with the matching extension,
// so the .aux may name its files as it likes; a missing or empty part is an absent file. Loading
// must end in a Design or an efield::Error: any other exception, a crash, a leak or a sanitizer
// report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "bookshelf/file_source.hpp"
#include "bookshelf/text_reader.hpp"
#include "efield/bookshelf.hpp"
#include "efield/error.hpp"
#include "efield/log.hpp"

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
    const efield::Design design = efield::bookshelf::load_design(kAuxPath, files, options, nullptr);
    design.check_consistent();
    const efield::PlacementInputs inputs = efield::placement_inputs(design);
    (void)inputs;
    (void)design.fixed_area_in_region();
  } catch (const efield::Error&) {
    // A clear error is a correct answer to a broken design.
  }
  return 0;
}
