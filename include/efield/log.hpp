#pragma once
// efield logs through one spdlog logger named "efield". Its level comes from the environment
// variable EFIELD_LOG_LEVEL (trace, debug, info, warn, error, critical, off; default warn) and
// can be changed at run time.
#include <string>

namespace efield {

// Sets the library's log level by name; throws efield::Error for an unknown name.
void set_log_level(const std::string& level);

}  // namespace efield
