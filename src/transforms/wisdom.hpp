#pragma once
// Internal: the wisdom of measure mode: which CUDA 2D method was fastest for a device, precision,
// kind and shape (PlanEffort::Measure), and which value of each of the CUDA electrostatic
// system's measured choices, kept for the process and written to or read from a versioned text
// file (save_wisdom / load_wisdom in efield/transforms.hpp):
//   efield-wisdom 1
//   device <current_device_identity()>
//   plan2d <float|double> <kind> <rows> <cols> <method key> <median ms>
//   es2d <float|double> <choice> <bins x> <bins y> <cells log2> <value> <median ms>
// The es2d lines are the CUDA electrostatic system's own choices (ElectrostaticOptions::plan_effort;
// es_system_choices() lists them and their values), per grid and power of two of the cell count.
// A file is taken whole or not at all: one from another device, of another version, or with a
// line that does not parse (an unknown kind, method, choice or value, a method that does not take
// the shape) is ignored with a warning.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "efield/transforms.hpp"
#include "transforms/cuda2d_registry.hpp"

namespace efield::detail {

inline constexpr int kWisdomVersion = 1;

struct WisdomKey {
  std::string device;  // current_device_identity()
  Scalar scalar;
  Transform2D kind;
  int rows;
  int cols;
  bool operator<(const WisdomKey& o) const {
    return std::tie(device, scalar, kind, rows, cols) < std::tie(o.device, o.scalar, o.kind, o.rows, o.cols);
  }
};

struct WisdomEntry {
  Cuda2DMethod method;
  double ms;  // its time when measured
};

// A choice of the CUDA electrostatic system that measure mode times, and the values it takes.
struct EsSystemChoice {
  const char* name;
  std::vector<const char*> values;
};
// 64-bit bins: one accumulator map for movable cells and fillers, or one each (kTwoMapsMaxBins).
inline constexpr const char* kEsAccumulatorMaps = "accumulator_maps";
const std::vector<EsSystemChoice>& es_system_choices();

struct EsWisdomKey {
  std::string device;  // current_device_identity()
  Scalar scalar;
  std::string choice;  // an EsSystemChoice's name
  int bins_x;
  int bins_y;
  int cells_log2;  // floor(log2(movable + filler cells))
  bool operator<(const EsWisdomKey& o) const {
    return std::tie(device, scalar, choice, bins_x, bins_y, cells_log2) <
           std::tie(o.device, o.scalar, o.choice, o.bins_x, o.bins_y, o.cells_log2);
  }
};

struct EsWisdomEntry {
  std::string value;  // one of the choice's values
  double ms;          // its time when measured
};

class Wisdom {
 public:
  // The process's wisdom (what Plan2D reads and the public functions change).
  static Wisdom& process();

  bool empty() const;
  std::optional<WisdomEntry> find(const WisdomKey& key) const;
  void record(const WisdomKey& key, const WisdomEntry& entry);
  std::optional<EsWisdomEntry> find(const EsWisdomKey& key) const;
  void record(const EsWisdomKey& key, const EsWisdomEntry& entry);
  void clear();
  // The file's text with the entries of `device`.
  std::string text(const std::string& device) const;
  // Adds the entries of a file's `text` when it was written on `device` and parses whole; else
  // warns (naming `source`), adds nothing and returns false.
  bool add_text(const std::string& text, const std::string& device, const std::string& source);

 private:
  mutable std::mutex mutex_;
  std::map<WisdomKey, WisdomEntry> entries_;
  std::map<EsWisdomKey, EsWisdomEntry> es_entries_;
};

}  // namespace efield::detail
