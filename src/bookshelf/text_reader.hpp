#pragma once
// A line tokenizer over a whole file held in memory, for the Bookshelf parsers.
// Lines end in LF, CRLF or a lone CR; '#' starts a comment; ':' is always a token of its own
// (so "NumNodes:5" and "NumNodes : 5" read the same). Every failure names the file and the line.
#include <algorithm>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace efield::bookshelf {

// Case-insensitive ASCII comparison (Bookshelf keywords: NumRows, Numrows, NUMROWS).
bool iequals(std::string_view a, std::string_view b) noexcept;

class LineReader {
 public:
  // `text` must outlive the reader (tokens are views into it).
  LineReader(std::string_view text, std::string path);

  // Moves to the next line holding at least one token; false at the end of the file.
  bool next();
  // Puts the current line back so that the following next() returns it again.
  void unread() noexcept { pending_ = true; }

  int line() const noexcept { return line_; }
  // Reservations sized from a header's count are capped by what the file could hold
  // (count <= bytes / bytes_per_item), so that a corrupt count cannot exhaust memory.
  std::size_t plausible(long long count, std::size_t bytes_per_item) const noexcept {
    const std::size_t cap = text_.size() / bytes_per_item + 1;
    return count < 0 ? 0 : std::min(static_cast<std::size_t>(count), cap);
  }
  // Runs `allocate`, a reservation for `count` items of about `item_bytes` bytes each sized from
  // the file's content; running out of memory there fails naming `what`, the count and the bytes.
  template <typename Allocate>
  void allocating(const char* what, std::size_t count, std::size_t item_bytes, Allocate&& allocate) const {
    try {
      allocate();
    } catch (const std::bad_alloc&) {
      fail_out_of_memory(what, count, item_bytes);
    }
  }
  const std::string& path() const noexcept { return path_; }
  std::size_t size() const noexcept { return tokens_.size(); }
  std::string_view operator[](std::size_t i) const { return tokens_[i]; }

  // Token i, or a failure "expected <what>" when the line is shorter.
  std::string_view token(std::size_t i, const char* what) const;
  // Token i as a finite number / a non-negative integer, or a failure naming what was expected.
  double number(std::size_t i, const char* what) const;
  long long count(std::size_t i, const char* what) const;
  // Fails unless token i is ':'.
  void expect_colon(std::size_t i, const char* after) const;
  // Fails when the line has tokens beyond the first n.
  void expect_end(std::size_t n, const char* what) const;

  // Skips an optional "UCLA <type> <version>" first line; fails when it names another type.
  void skip_header(const char* type);
  // Reads "<Key> : <count>" when the current line starts with `key`; true when it did.
  bool key_count(const char* key, long long* value) const;

  [[noreturn]] void fail(const std::string& what) const;        // "<path>:<line>: <what>"
  [[noreturn]] void fail_at_end(const std::string& what) const;  // "<path>: at end of file: <what>"
  [[noreturn]] void fail_out_of_memory(const char* what, std::size_t count, std::size_t item_bytes) const;
  // A header's count that the file's content disagrees with: "<path>:<header line>: <what>".
  [[noreturn]] void fail_count(int header_line, const char* key, long long declared, long long found,
                               const char* items) const;

 private:
  void tokenize(std::size_t begin, std::size_t end);

  std::string_view text_;
  std::string path_;
  std::size_t pos_ = 0;
  int line_ = 0;
  int next_line_ = 1;
  bool pending_ = false;
  std::vector<std::string_view> tokens_;
};

// Quotes a token for messages: 'abc', with non-printable bytes as \xNN and long tokens cut.
std::string quote(std::string_view token);

}  // namespace efield::bookshelf
