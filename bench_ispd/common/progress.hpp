#pragma once
// bench_ispd's progress display on stderr: one line per step with its elapsed time; on a
// terminal, steps that take a while show a live counter ("timing 37/50").
#include <chrono>
#include <string>

namespace efield::bench {

class Progress {
 public:
  explicit Progress(bool quiet = false);
  // Starts a step: "[2/8] adaptec1: generating ...".
  void step(const std::string& prefix, const std::string& what);
  // Updates a counter within the step (only drawn on a terminal, at most ~10 times a second).
  void tick(int done, int total);
  // Ends the step: "... done (0.35 s) <note>".
  void done(const std::string& note = {});

 private:
  bool quiet_, tty_;
  std::string line_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace efield::bench
