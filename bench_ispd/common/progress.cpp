#include "common/progress.hpp"

#include <cstdio>
#include <unistd.h>

namespace efield::bench {

Progress::Progress(bool quiet) : quiet_(quiet), tty_(isatty(fileno(stderr)) != 0) {}

void Progress::step(const std::string& prefix, const std::string& what) {
  line_ = prefix + what + " ...";
  start_ = last_draw_ = std::chrono::steady_clock::now();
  if (quiet_) return;
  std::fprintf(stderr, tty_ ? "\r\033[K%s" : "%s", line_.c_str());
  std::fflush(stderr);
}

void Progress::tick(int done, int total) {
  if (quiet_ || !tty_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100) && done != total) return;
  last_draw_ = now;
  std::fprintf(stderr, "\r\033[K%s %d/%d", line_.c_str(), done, total);
  std::fflush(stderr);
}

void Progress::done(const std::string& note) {
  if (quiet_) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // On a terminal the step line is redrawn whole; elsewhere it was printed already (no newline).
  if (tty_) std::fprintf(stderr, "\r\033[K%s", line_.c_str());
  std::fprintf(stderr, " done (%.2f s)%s%s\n", s, note.empty() ? "" : " ", note.c_str());
  std::fflush(stderr);
}

}  // namespace efield::bench
