#pragma once
// Internal: one parser per Bookshelf file kind, each filling its part of a Design.
// They run in the order nodes, nets, wts, pl, scl (nets, wts and pl look names up in the index
// that the nodes parser builds).
#include <string>
#include <string_view>
#include "bookshelf/name_index.hpp"
#include "bookshelf/text_reader.hpp"
#include "efield/bookshelf.hpp"

namespace efield::bookshelf {

// The node name index's keys are views into the .nodes file's bytes, which the loader keeps
// alive until every parser has run.

// The files an .aux names, as paths relative to the working directory ("" when absent), and
// where each was named ("<aux>:<line>") for messages about missing files.
struct AuxFiles {
  std::string nodes, nets, wts, pl, scl;
  std::string nodes_from, nets_from, wts_from, pl_from, scl_from;
};

AuxFiles parse_aux(LineReader& reader, const std::string& directory);
void parse_nodes(LineReader& reader, Design& design, NameIndex& index);
// Returns the count of pins whose offsets, as written, cannot be from their node's centre.
long long parse_nets(LineReader& reader, const NameIndex& index, Design& design);
void parse_wts(LineReader& reader, const NameIndex& index, Design& design);
void parse_pl(LineReader& reader, const NameIndex& index, Design& design);
void parse_scl(LineReader& reader, Design& design);

}  // namespace efield::bookshelf
