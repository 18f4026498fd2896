// The .nodes file: "NumNodes : n", "NumTerminals : t", then one line per node:
// "<name> <width> <height> [terminal | terminal_NI]".
#include <algorithm>

#include "bookshelf/parsers.hpp"

namespace efield::bookshelf {

void parse_nodes(LineReader& reader, Design& design, NameIndex& index) {
  reader.skip_header("nodes");
  long long declared_nodes = -1, declared_terminals = -1;
  int header_line = 0, terminals_line = 0;
  long long terminals = 0;
  while (reader.next()) {
    long long value = 0;
    if (reader.key_count("NumNodes", &value)) {
      if (declared_nodes >= 0) reader.fail("a second NumNodes line");
      if (value > 0x7fffffff) reader.fail("NumNodes " + std::to_string(value) + " is too large");
      declared_nodes = value;
      header_line = reader.line();
      const std::size_t n = reader.plausible(value, 6);  // "a 1 1\n" is the shortest node line
      const std::size_t item_bytes = sizeof(std::string) + 2 * sizeof(double) + sizeof(NodeKind) + 48;  // + index
      reader.allocating("nodes", n, item_bytes, [&] {
        design.node_names.reserve(n);
        design.width.reserve(n);
        design.height.reserve(n);
        design.kind.reserve(n);
        index.reserve(n);
      });
      continue;
    }
    if (reader.key_count("NumTerminals", &value)) {
      if (declared_terminals >= 0) reader.fail("a second NumTerminals line");
      declared_terminals = value, terminals_line = reader.line();
      continue;
    }
    if (declared_nodes < 0) reader.fail("expected 'NumNodes : <count>' before the first node, got " + quote(reader[0]));
    const std::string_view name = reader[0];
    const double w = reader.number(1, "the node width");
    const double h = reader.number(2, "the node height");
    if (w < 0 || h < 0) reader.fail("node " + quote(name) + " has a negative size");
    NodeKind kind = NodeKind::Movable;
    if (reader.size() > 3) {
      if (iequals(reader[3], "terminal")) kind = NodeKind::Fixed;
      else if (iequals(reader[3], "terminal_NI")) kind = NodeKind::FixedNI;
      else reader.fail("expected 'terminal' or 'terminal_NI' after the node size, got " + quote(reader[3]));
      reader.expect_end(4, "the node type");
      ++terminals;
    }
    if (static_cast<long long>(design.node_names.size()) >= declared_nodes)
      reader.fail("more nodes than NumNodes = " + std::to_string(declared_nodes) + " (line " +
                  std::to_string(header_line) + ") declares");
    const int id = static_cast<int>(design.node_names.size());
    if (!index.emplace(name, id)) reader.fail("node " + quote(name) + " is defined twice");
    design.node_names.emplace_back(name);
    design.width.push_back(w);
    design.height.push_back(h);
    design.kind.push_back(kind);
  }
  if (declared_nodes < 0) reader.fail_at_end("no 'NumNodes : <count>' line");
  if (static_cast<long long>(design.node_names.size()) != declared_nodes)
    reader.fail_count(header_line, "NumNodes", declared_nodes, static_cast<long long>(design.node_names.size()), "nodes");
  if (declared_terminals >= 0 && terminals != declared_terminals)
    reader.fail_count(terminals_line, "NumTerminals", declared_terminals, terminals, "terminals");
  const std::size_t n = design.node_names.size();
  design.x.assign(n, 0.0);
  design.y.assign(n, 0.0);
  design.orientation.assign(n, Orientation::N);
  design.node_weight.assign(n, 1.0);
}

}  // namespace efield::bookshelf
