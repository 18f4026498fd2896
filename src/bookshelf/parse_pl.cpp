// The .pl file: "<name> <x> <y> [: <orientation>] [/FIXED | /FIXED_NI]" (lower-left corners).
// /FIXED makes a node fixed even when .nodes does not call it a terminal.
#include <vector>

#include "bookshelf/parsers.hpp"
#include "common/log.hpp"

namespace efield::bookshelf {
namespace {

bool parse_orientation(std::string_view t, Orientation* o) {
  static constexpr struct { const char* name; Orientation value; } kTable[] = {
      {"N", Orientation::N},   {"S", Orientation::S},   {"E", Orientation::E},   {"W", Orientation::W},
      {"FN", Orientation::FN}, {"FS", Orientation::FS}, {"FE", Orientation::FE}, {"FW", Orientation::FW}};
  for (const auto& entry : kTable)
    if (iequals(t, entry.name)) {
      *o = entry.value;
      return true;
    }
  return false;
}

}  // namespace

void parse_pl(LineReader& reader, const NameIndex& index, Design& design) {
  reader.skip_header("pl");
  std::vector<char> placed(design.node_names.size(), 0);
  std::size_t num_placed = 0;
  while (reader.next()) {
    const int id = index.find(reader[0]);
    if (id < 0) reader.fail("unknown node " + quote(reader[0]) + " (not in the .nodes file)");
    design.x[id] = reader.number(1, "the x coordinate");
    design.y[id] = reader.number(2, "the y coordinate");
    std::size_t i = 3;
    if (i < reader.size() && reader[i] == ":") {
      if (!parse_orientation(reader.token(i + 1, "an orientation after ':'"), &design.orientation[id]))
        reader.fail("expected an orientation (N, S, E, W, FN, FS, FE, FW), got " + quote(reader[i + 1]));
      i += 2;
    }
    if (i < reader.size()) {
      if (iequals(reader[i], "/FIXED")) design.kind[id] = NodeKind::Fixed;
      else if (iequals(reader[i], "/FIXED_NI")) design.kind[id] = NodeKind::FixedNI;
      else reader.fail("expected ': <orientation>', /FIXED or /FIXED_NI after the position, got " + quote(reader[i]));
      reader.expect_end(i + 1, reader[i] == "/FIXED" ? "/FIXED" : "/FIXED_NI");
    }
    if (!placed[id]) placed[id] = 1, ++num_placed;
  }
  if (num_placed < placed.size()) {
    std::size_t first = 0;
    while (placed[first]) ++first;
    detail::log().warn("{}: {} of {} nodes have no position (the first is '{}'); they stay at (0, 0)",
                       reader.path(), placed.size() - num_placed, placed.size(), design.node_names[first]);
  }
}

}  // namespace efield::bookshelf
