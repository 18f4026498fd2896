#pragma once
// Internal: the library's spdlog logger. Public control is in <efield/log.hpp>.
#include <spdlog/spdlog.h>

namespace efield::detail {

spdlog::logger& log();

}  // namespace efield::detail
