#pragma once
// bench_ispd's outputs: the summary table (stdout, and Markdown with GPU/date/commit for
// bench_ispd/results/) and the JSON file.
#include <string>
#include <vector>

#include "common/density_run.hpp"

namespace efield::bench {

// The table alone, Markdown syntax (readable on a terminal too).
std::string summary_table(const std::vector<RunResult>& results);
// Heading, run facts (device, date, commit, command line) and the table.
std::string markdown_report(const std::vector<RunResult>& results, const std::string& command_line);
std::string json_report(const std::vector<RunResult>& results, const std::string& command_line);

}  // namespace efield::bench
