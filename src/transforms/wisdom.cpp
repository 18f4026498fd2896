// The wisdom of measure mode (wisdom.hpp: Plan2D's methods and the CUDA electrostatic system's
// choices) and the public save_wisdom / load_wisdom / forget_wisdom.
#include "transforms/wisdom.hpp"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <vector>

#include "common/device_properties.hpp"
#include "common/log.hpp"
#include "efield/error.hpp"

namespace efield::detail {
namespace {

constexpr const char* kMagic = "efield-wisdom";

const char* scalar_key(Scalar s) { return s == Scalar::Float ? "float" : "double"; }

std::optional<Transform2D> kind_of(const std::string& name) {
  for (Transform2D k : {Transform2D::Dct2, Transform2D::Idct2, Transform2D::IdctIdxst, Transform2D::IdxstIdct})
    if (name == to_string(k)) return k;
  return std::nullopt;
}

// One "plan2d ..." line; nullopt when it does not parse or names a method that does not take the
// shape.
std::optional<std::pair<WisdomKey, WisdomEntry>> parse_entry(const std::string& line, const std::string& device) {
  std::istringstream in(line);
  std::string tag, type, kind_name, method_key;
  long long rows = 0, cols = 0;
  double ms = 0;
  if (!(in >> tag >> type >> kind_name >> rows >> cols >> method_key >> ms) || tag != "plan2d") return std::nullopt;
  std::string rest;
  if (in >> rest) return std::nullopt;  // trailing tokens
  if (type != "float" && type != "double") return std::nullopt;
  const std::optional<Transform2D> kind = kind_of(kind_name);
  const Cuda2DSolver* solver = find_cuda_2d_solver(method_key);
  if (!kind || solver == nullptr || rows < 1 || cols < 1 || rows > (1LL << 30) || cols > (1LL << 30) ||
      !std::isfinite(ms) || ms < 0)
    return std::nullopt;
  const Scalar scalar = type == "float" ? Scalar::Float : Scalar::Double;
  if (!solver->applies(*kind, static_cast<int>(rows), static_cast<int>(cols), scalar)) return std::nullopt;
  return std::make_pair(WisdomKey{device, scalar, *kind, static_cast<int>(rows), static_cast<int>(cols)},
                        WisdomEntry{solver->method, ms});
}

// One "es2d ..." line; nullopt when it does not parse or names an unknown choice or value.
std::optional<std::pair<EsWisdomKey, EsWisdomEntry>> parse_es_entry(const std::string& line,
                                                                     const std::string& device) {
  std::istringstream in(line);
  std::string tag, type, choice, value;
  long long bins_x = 0, bins_y = 0, cells_log2 = -1;
  double ms = 0;
  if (!(in >> tag >> type >> choice >> bins_x >> bins_y >> cells_log2 >> value >> ms) || tag != "es2d")
    return std::nullopt;
  std::string rest;
  if (in >> rest) return std::nullopt;  // trailing tokens
  if (type != "float" && type != "double") return std::nullopt;
  bool known = false;
  for (const EsSystemChoice& c : es_system_choices())
    if (choice == c.name)
      for (const char* v : c.values) known = known || value == v;
  if (!known || bins_x < 1 || bins_y < 1 || bins_x > (1LL << 30) || bins_y > (1LL << 30) || cells_log2 < 0 ||
      cells_log2 > 62 || !std::isfinite(ms) || ms < 0)
    return std::nullopt;
  const Scalar scalar = type == "float" ? Scalar::Float : Scalar::Double;
  return std::make_pair(EsWisdomKey{device, scalar, choice, static_cast<int>(bins_x), static_cast<int>(bins_y),
                                    static_cast<int>(cells_log2)},
                        EsWisdomEntry{value, ms});
}

}  // namespace

const std::vector<EsSystemChoice>& es_system_choices() {
  static const std::vector<EsSystemChoice> choices = {{kEsAccumulatorMaps, {"one", "two"}}};
  return choices;
}

Wisdom& Wisdom::process() {
  static Wisdom wisdom;
  return wisdom;
}

bool Wisdom::empty() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return entries_.empty() && es_entries_.empty();
}

std::optional<WisdomEntry> Wisdom::find(const WisdomKey& key) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void Wisdom::record(const WisdomKey& key, const WisdomEntry& entry) {
  const std::lock_guard<std::mutex> lock(mutex_);
  entries_[key] = entry;
}

std::optional<EsWisdomEntry> Wisdom::find(const EsWisdomKey& key) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto it = es_entries_.find(key);
  if (it == es_entries_.end()) return std::nullopt;
  return it->second;
}

void Wisdom::record(const EsWisdomKey& key, const EsWisdomEntry& entry) {
  const std::lock_guard<std::mutex> lock(mutex_);
  es_entries_[key] = entry;
}

void Wisdom::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
  es_entries_.clear();
}

std::string Wisdom::text(const std::string& device) const {
  std::ostringstream out;
  out << kMagic << ' ' << kWisdomVersion << '\n' << "device " << device << '\n';
  out << std::setprecision(6);
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [key, entry] : entries_) {
    if (key.device != device) continue;
    out << "plan2d " << scalar_key(key.scalar) << ' ' << to_string(key.kind) << ' ' << key.rows << ' ' << key.cols
        << ' ' << to_string(entry.method) << ' ' << entry.ms << '\n';
  }
  for (const auto& [key, entry] : es_entries_) {
    if (key.device != device) continue;
    out << "es2d " << scalar_key(key.scalar) << ' ' << key.choice << ' ' << key.bins_x << ' ' << key.bins_y << ' '
        << key.cells_log2 << ' ' << entry.value << ' ' << entry.ms << '\n';
  }
  return out.str();
}

bool Wisdom::add_text(const std::string& text, const std::string& device, const std::string& source) {
  std::istringstream in(text);
  std::string line;
  const auto ignored = [&](const std::string& why) {
    log().warn("efield wisdom {}: {}; ignored", source, why);
    return false;
  };
  if (!std::getline(in, line)) return ignored("empty, not a wisdom file");
  {
    std::istringstream head(line);
    std::string magic;
    int version = 0;
    if (!(head >> magic >> version) || magic != kMagic) return ignored("not a wisdom file (no \"efield-wisdom\" line)");
    if (version != kWisdomVersion)
      return ignored("format version " + std::to_string(version) + ", this library reads " +
                     std::to_string(kWisdomVersion));
  }
  if (!std::getline(in, line) || line.rfind("device ", 0) != 0) return ignored("line 2 does not name the device");
  const std::string written_on = line.substr(7);
  if (written_on != device) return ignored("written on another GPU (" + written_on + "; this is " + device + ")");
  std::vector<std::pair<WisdomKey, WisdomEntry>> entries;
  std::vector<std::pair<EsWisdomKey, EsWisdomEntry>> es_entries;
  for (int number = 3; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto unparsed = [&] { return ignored("line " + std::to_string(number) + " does not parse: \"" + line + "\""); };
    if (line.rfind("es2d", 0) == 0) {
      auto entry = parse_es_entry(line, device);
      if (!entry) return unparsed();
      es_entries.push_back(*entry);
      continue;
    }
    auto entry = parse_entry(line, device);
    if (!entry) return unparsed();
    entries.push_back(*entry);
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [key, entry] : entries) entries_[key] = entry;
  for (const auto& [key, entry] : es_entries) es_entries_[key] = entry;
  return true;
}

}  // namespace efield::detail

namespace efield {

void save_wisdom(const std::string& path) {
  std::string device;
  try {
    device = detail::current_device_identity();
  } catch (const Error& e) {
    throw Error(std::string("save_wisdom: no CUDA device to name in the file (") + e.what() + ")");
  }
  if (device.empty()) throw Error("save_wisdom: no CUDA device (wisdom is per GPU)");
  const std::string text = detail::Wisdom::process().text(device);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  if (!out) throw Error("save_wisdom: cannot write \"" + path + "\"");
}

bool load_wisdom(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    detail::log().warn("efield wisdom {}: cannot be read; ignored", path);
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string device;
  try {
    device = detail::current_device_identity();
  } catch (const Error& e) {
    detail::log().warn("efield wisdom {}: no CUDA device to check it against ({}); ignored", path, e.what());
    return false;
  }
  if (device.empty()) {
    detail::log().warn("efield wisdom {}: built without CUDA; ignored", path);
    return false;
  }
  return detail::Wisdom::process().add_text(text.str(), device, path);
}

void forget_wisdom() { detail::Wisdom::process().clear(); }

}  // namespace efield
