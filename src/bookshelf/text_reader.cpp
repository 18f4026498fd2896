#include "bookshelf/text_reader.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "efield/error.hpp"

namespace efield::bookshelf {

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string quote(std::string_view token) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < token.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (token.size() > kMax) out += "...";
  return out + "'";
}

LineReader::LineReader(std::string_view text, std::string path) : text_(text), path_(std::move(path)) {
  tokens_.reserve(16);
}

void LineReader::fail(const std::string& what) const {
  throw Error(path_ + ":" + std::to_string(line_) + ": " + what);
}

void LineReader::fail_at_end(const std::string& what) const {
  const int lines = next_line_ - 1;
  if (lines == 0) throw Error(path_ + ": empty file: " + what);
  throw Error(path_ + ": at end of file (line " + std::to_string(lines) + "): " + what);
}

void LineReader::fail_out_of_memory(const char* what, std::size_t count, std::size_t item_bytes) const {
  fail("out of memory reserving room for " + std::to_string(count) + " " + what + " (about " +
       std::to_string(static_cast<double>(count) * static_cast<double>(item_bytes) / 1e6) + " MB)");
}

void LineReader::fail_count(int header_line, const char* key, long long declared, long long found,
                            const char* items) const {
  std::string what = std::string(key) + " says " + std::to_string(declared) + " but the file holds " +
                     std::to_string(found) + " " + items;
  if (found < declared) what += " (is it truncated?)";
  throw Error(path_ + ":" + std::to_string(header_line) + ": " + what);
}

namespace {
inline bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }
}  // namespace

void LineReader::tokenize(std::size_t begin, std::size_t end) {
  tokens_.clear();
  std::size_t i = begin;
  while (i < end) {
    const auto c = static_cast<unsigned char>(text_[i]);
    if (is_space(c)) {
      ++i;
      continue;
    }
    if (c == '#') {
      // Comments may hold any text (names, e-mail addresses, UTF-8), but never NUL bytes.
      for (std::size_t j = i; j < end; ++j)
        if (text_[j] == '\0') fail("unexpected binary byte 0x00 in a comment (not a text file?)");
      return;
    }
    if (c == ':') {
      tokens_.push_back(text_.substr(i, 1));
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < end) {
      const auto d = static_cast<unsigned char>(text_[i]);
      if (is_space(d) || d == ':' || d == '#') break;
      if (d < 0x20 || d >= 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", d);
        fail(std::string("unexpected binary byte ") + hex + " (not a text file?)");
      }
      ++i;
    }
    tokens_.push_back(text_.substr(start, i - start));
  }
}

bool LineReader::next() {
  if (pending_) {
    pending_ = false;
    return true;
  }
  while (pos_ < text_.size()) {
    const std::size_t begin = pos_;
    std::size_t end = begin;
    while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
    pos_ = end;
    if (pos_ < text_.size()) {
      if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
      ++pos_;
    }
    line_ = next_line_++;
    tokenize(begin, end);
    if (!tokens_.empty()) return true;
  }
  tokens_.clear();
  return false;
}

std::string_view LineReader::token(std::size_t i, const char* what) const {
  if (i >= tokens_.size()) fail(std::string("expected ") + what + " but the line ends");
  return tokens_[i];
}

double LineReader::number(std::size_t i, const char* what) const {
  std::string_view t = token(i, what);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(value) || t.empty())
    fail(std::string("expected ") + what + " (a number), got " + quote(tokens_[i]));
  return value;
}

long long LineReader::count(std::size_t i, const char* what) const {
  std::string_view t = token(i, what);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || ptr != t.data() + t.size() || value < 0 || t.empty())
    fail(std::string("expected ") + what + " (a non-negative integer), got " + quote(tokens_[i]));
  return value;
}

void LineReader::expect_colon(std::size_t i, const char* after) const {
  if (i >= tokens_.size() || tokens_[i] != ":")
    fail(std::string("expected ':' after ") + after +
         (i < tokens_.size() ? ", got " + quote(tokens_[i]) : std::string(" but the line ends")));
}

void LineReader::expect_end(std::size_t n, const char* what) const {
  if (tokens_.size() > n) fail(std::string("unexpected ") + quote(tokens_[n]) + " after " + what);
}

void LineReader::skip_header(const char* type) {
  if (!next()) return;
  if (!iequals(tokens_[0], "UCLA")) {
    unread();
    return;
  }
  if (tokens_.size() < 2 || !iequals(tokens_[1], type))
    fail(std::string("expected the header 'UCLA ") + type + " 1.0', got " +
         (tokens_.size() < 2 ? std::string("'UCLA' alone") : "'UCLA " + std::string(tokens_[1]) + " ...'"));
}

bool LineReader::key_count(const char* key, long long* value) const {
  if (!iequals(tokens_[0], key)) return false;
  expect_colon(1, key);
  *value = count(2, key);
  expect_end(3, key);
  return true;
}

}  // namespace efield::bookshelf
