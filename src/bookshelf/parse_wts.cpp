// The .wts file: "<name> <weight>" lines. A name is a net's (its weight) or a node's (kept as a
// node weight; ICCAD04 designs weight nodes). ISPD2005's .wts files hold only the header.
// Names that are neither are skipped with a warning, not an error: the published ibm01.wts
// weighs pads that its .nodes file does not define.
#include <unordered_map>

#include "bookshelf/parsers.hpp"
#include "common/log.hpp"

namespace efield::bookshelf {

void parse_wts(LineReader& reader, const NameIndex& index, Design& design) {
  reader.skip_header("wts");
  std::unordered_map<std::string_view, int> nets;  // built only when the file has lines
  bool nets_indexed = false;
  std::size_t unknown = 0;
  int first_unknown_line = 0;
  std::string first_unknown;
  while (reader.next()) {
    const std::string_view name = reader[0];
    const double weight = reader.number(1, "the weight");
    reader.expect_end(2, "the weight");
    if (!nets_indexed) {
      nets.reserve(design.net_names.size());
      for (std::size_t k = 0; k < design.net_names.size(); ++k)
        if (!design.net_names[k].empty()) nets.emplace(design.net_names[k], static_cast<int>(k));
      nets_indexed = true;
    }
    if (const auto net = nets.find(name); net != nets.end()) {
      design.net_weight[net->second] = weight;
    } else if (const int node = index.find(name); node >= 0) {
      design.node_weight[node] = weight;
    } else {
      if (unknown++ == 0) first_unknown = std::string(name), first_unknown_line = reader.line();
    }
  }
  if (unknown > 0)
    detail::log().warn("{}: skipped {} weights of names that are neither nets nor nodes (the first: '{}' at line {})",
                       reader.path(), unknown, first_unknown, first_unknown_line);
}

}  // namespace efield::bookshelf
