// The .scl file: "NumRows : n", then n blocks
//   CoreRow Horizontal
//     Coordinate : y   Height : h   Sitewidth : w   Sitespacing : s
//     Siteorient : 1|N|...   Sitesymmetry : 1|Y|...
//     SubrowOrigin : x  NumSites : n        (one line, or two)
//   End
#include <algorithm>
#include <cmath>

#include "bookshelf/parsers.hpp"

namespace efield::bookshelf {
namespace {

struct RowFields {
  bool coordinate = false, height = false, origin = false, sites = false, width = false, spacing = false;
};

// Reads "<Key> : <value>" pairs from the current line into `row` (SubrowOrigin and NumSites
// share a line in most files).
void read_row_line(LineReader& reader, Row& row, RowFields& seen) {
  std::size_t i = 0;
  while (i < reader.size()) {
    const std::string_view key = reader[i];
    reader.expect_colon(i + 1, ("'" + std::string(key) + "'").c_str());
    const std::size_t v = i + 2;
    if (iequals(key, "Coordinate")) row.y = reader.number(v, "the row's Coordinate"), seen.coordinate = true;
    else if (iequals(key, "Height")) row.height = reader.number(v, "the row's Height"), seen.height = true;
    else if (iequals(key, "Sitewidth")) row.site_width = reader.number(v, "the Sitewidth"), seen.width = true;
    else if (iequals(key, "Sitespacing")) row.site_spacing = reader.number(v, "the Sitespacing"), seen.spacing = true;
    else if (iequals(key, "Siteorient")) row.site_orient = std::string(reader.token(v, "the Siteorient"));
    else if (iequals(key, "Sitesymmetry")) row.site_symmetry = std::string(reader.token(v, "the Sitesymmetry"));
    else if (iequals(key, "SubrowOrigin")) row.x_min = reader.number(v, "the SubrowOrigin"), seen.origin = true;
    else if (iequals(key, "NumSites")) row.num_sites = reader.count(v, "NumSites"), seen.sites = true;
    else reader.fail("unknown row field " + quote(key) +
                     " (expected Coordinate, Height, Sitewidth, Sitespacing, Siteorient, Sitesymmetry, "
                     "SubrowOrigin, NumSites or End)");
    i = v + 1;
  }
}

}  // namespace

void parse_scl(LineReader& reader, Design& design) {
  reader.skip_header("scl");
  long long declared_rows = -1;
  int rows_line = 0;
  while (reader.next()) {
    long long value = 0;
    if (reader.key_count("NumRows", &value)) {
      if (declared_rows >= 0) reader.fail("a second NumRows line");
      declared_rows = value, rows_line = reader.line();
      const std::size_t n = reader.plausible(value, 60);  // the shortest row block is ~60 bytes
      reader.allocating("rows", n, sizeof(Row), [&] { design.rows.reserve(n); });
      continue;
    }
    if (!iequals(reader[0], "CoreRow")) reader.fail("expected 'CoreRow Horizontal', got " + quote(reader[0]));
    if (declared_rows < 0) reader.fail("expected 'NumRows : <count>' before the first row");
    if (reader.size() > 1 && !iequals(reader[1], "Horizontal"))
      reader.fail("only horizontal rows are supported, got " + quote(reader[1]));
    reader.expect_end(2, "'CoreRow Horizontal'");
    if (static_cast<long long>(design.rows.size()) >= declared_rows)
      reader.fail("more rows than NumRows = " + std::to_string(declared_rows) + " (line " +
                  std::to_string(rows_line) + ") declares");
    const int row_line = reader.line();
    Row row;
    RowFields seen;
    for (;;) {
      if (!reader.next())
        reader.fail_at_end("the row starting at line " + std::to_string(row_line) + " has no 'End'; is the file truncated?");
      if (iequals(reader[0], "End")) {
        reader.expect_end(1, "End");
        break;
      }
      if (iequals(reader[0], "CoreRow"))
        reader.fail("expected 'End' of the row starting at line " + std::to_string(row_line) + " before the next row");
      read_row_line(reader, row, seen);
    }
    const auto need = [&](bool ok, const char* field) {
      if (!ok) reader.fail(std::string("the row starting at line ") + std::to_string(row_line) + " has no " + field);
    };
    need(seen.coordinate, "Coordinate");
    need(seen.height, "Height");
    need(seen.origin, "SubrowOrigin");
    need(seen.sites, "NumSites");
    if (!seen.spacing) row.site_spacing = row.site_width;
    if (row.height <= 0 || row.site_width <= 0 || row.site_spacing <= 0)
      reader.fail("the row starting at line " + std::to_string(row_line) +
                  " needs a positive Height, Sitewidth and Sitespacing");
    row.x_max = row.x_min + static_cast<double>(row.num_sites) * row.site_spacing;
    if (!std::isfinite(row.x_max) || !std::isfinite(row.y + row.height))
      reader.fail("the row starting at line " + std::to_string(row_line) +
                  " reaches past the largest double (SubrowOrigin + NumSites * Sitespacing or Coordinate + Height)");
    design.rows.push_back(std::move(row));
  }
  if (declared_rows < 0) reader.fail_at_end("no 'NumRows : <count>' line");
  if (static_cast<long long>(design.rows.size()) != declared_rows)
    reader.fail_count(rows_line, "NumRows", declared_rows, static_cast<long long>(design.rows.size()), "rows");
}

}  // namespace efield::bookshelf
