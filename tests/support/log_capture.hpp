#pragma once
// What the library logs while a LogCapture lives (at `level` and above), for tests that check a
// warning or the library's account of a choice.
#include <spdlog/sinks/ostream_sink.h>

#include <memory>
#include <sstream>
#include <string>

#include "common/log.hpp"

namespace efield::test {

class LogCapture {
 public:
  explicit LogCapture(spdlog::level::level_enum level = spdlog::level::warn)
      : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)), level_before_(detail::log().level()) {
    sink_->set_level(level);
    if (level < level_before_) detail::log().set_level(level);
    detail::log().sinks().push_back(sink_);
  }
  ~LogCapture() {
    auto& sinks = detail::log().sinks();
    for (auto it = sinks.begin(); it != sinks.end(); ++it)
      if (*it == sink_) {
        sinks.erase(it);
        break;
      }
    detail::log().set_level(level_before_);
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
  spdlog::level::level_enum level_before_;
};

}  // namespace efield::test
