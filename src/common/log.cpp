#include "common/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>

#include "efield/error.hpp"
#include "efield/log.hpp"

namespace efield {
namespace {

spdlog::level::level_enum parse_level(const std::string& name) {
  const auto level = spdlog::level::from_str(name);
  // spdlog maps unknown names to "off"; only accept "off" when it was asked for.
  if (level == spdlog::level::off && name != "off") {
    throw Error("efield log level '" + name +
                "' is unknown (use trace, debug, info, warn, error, critical or off)");
  }
  return level;
}

std::shared_ptr<spdlog::logger> make_logger() {
  auto logger = spdlog::get("efield");
  if (!logger) {
    logger = spdlog::stderr_color_mt("efield");
    logger->set_pattern("[%H:%M:%S.%e] [efield] [%^%l%$] %v");
  }
  logger->set_level(spdlog::level::warn);
  if (const char* env = std::getenv("EFIELD_LOG_LEVEL"); env && *env) {
    try {
      logger->set_level(parse_level(env));
    } catch (const Error& e) {
      logger->warn("ignoring EFIELD_LOG_LEVEL: {}", e.what());
    }
  }
  return logger;
}

}  // namespace

namespace detail {
spdlog::logger& log() {
  static const std::shared_ptr<spdlog::logger> logger = make_logger();
  return *logger;
}
}  // namespace detail

void set_log_level(const std::string& level) { detail::log().set_level(parse_level(level)); }

}  // namespace efield
