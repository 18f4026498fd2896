#include "common/cli.hpp"

#include <charconv>
#include <cstdio>

#include "efield/error.hpp"

namespace efield::bench {
namespace {

bool parse_positive(const std::string& text, int& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && value >= 1;
}

}  // namespace

GridSize parse_grid_size(const std::string& text) {
  const auto x = text.find_first_of("xX");
  GridSize s;
  if (x == std::string::npos || !parse_positive(text.substr(0, x), s.rows) ||
      !parse_positive(text.substr(x + 1), s.cols)) {
    throw CLI::ValidationError("expected two whole numbers of at least 1 joined by 'x' (e.g. 512x384), got '" + text +
                               "'");
  }
  return s;
}

CLI::Validator grid_size_check() {
  return CLI::Validator(
      [](std::string& text) {
        try {
          parse_grid_size(text);
        } catch (const CLI::ValidationError& e) {
          return std::string(e.what());
        }
        return std::string();
      },
      "", "ROWSxCOLS");
}

CLI::Validator at_least(long long min) {
  return CLI::Validator(
      [min](std::string& text) {
        long long value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size()) return "expected a whole number, got '" + text + "'";
        if (value < min) return "must be at least " + std::to_string(min) + ", got " + text;
        return std::string();
      },
      "", ">=" + std::to_string(min));
}

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& text) {
        unsigned long long value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size() || text.empty())
          return "expected a whole number in 0..2^64-1, got '" + text + "'";
        return std::string();
      },
      "", "0..2^64-1");
}

void save_text(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw Error(path + ": cannot create file");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw Error(path + ": write error");
}

}  // namespace efield::bench
