// The .aux file: "RowBasedPlacement : a.nodes a.nets a.wts a.pl a.scl". Files are recognised by
// their extension (case-insensitive) and resolved relative to the .aux file's folder.
#include "bookshelf/parsers.hpp"
#include "common/log.hpp"

namespace efield::bookshelf {
namespace {

std::string_view extension(std::string_view file) {
  const auto dot = file.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : file.substr(dot + 1);
}

}  // namespace

AuxFiles parse_aux(LineReader& reader, const std::string& directory) {
  AuxFiles files;
  bool saw_colon_line = false;
  while (reader.next()) {
    std::size_t first = 0;
    if (!saw_colon_line) {
      // The first line names the placement kind (RowBasedPlacement) and then ':'.
      reader.expect_colon(1, "the placement kind (e.g. 'RowBasedPlacement :')");
      first = 2;
      saw_colon_line = true;
    }
    for (std::size_t i = first; i < reader.size(); ++i) {
      const std::string_view file = reader[i];
      const std::string_view ext = extension(file);
      std::string* slot = nullptr;
      std::string* from = nullptr;
      if (iequals(ext, "nodes")) slot = &files.nodes, from = &files.nodes_from;
      else if (iequals(ext, "nets")) slot = &files.nets, from = &files.nets_from;
      else if (iequals(ext, "wts")) slot = &files.wts, from = &files.wts_from;
      else if (iequals(ext, "pl")) slot = &files.pl, from = &files.pl_from;
      else if (iequals(ext, "scl")) slot = &files.scl, from = &files.scl_from;
      if (!slot) {
        detail::log().info("{}:{}: ignoring {} (not a file kind efield reads)", reader.path(), reader.line(),
                           std::string(file));
        continue;
      }
      if (!slot->empty()) reader.fail("names a second ." + std::string(ext) + " file " + quote(file));
      const bool absolute = !file.empty() && file.front() == '/';
      *slot = absolute || directory.empty() ? std::string(file) : directory + "/" + std::string(file);
      *from = reader.path() + ":" + std::to_string(reader.line());
    }
  }
  if (!saw_colon_line) reader.fail_at_end("expected 'RowBasedPlacement : <files>'");
  const auto require = [&](const std::string& slot, const char* ext) {
    if (slot.empty()) reader.fail_at_end(std::string("the .aux file names no .") + ext + " file");
  };
  require(files.nodes, "nodes");
  require(files.pl, "pl");
  require(files.scl, "scl");
  return files;
}

}  // namespace efield::bookshelf
