#pragma once
// What load_bookshelf says about a design: its efield::Error message, or "(no error)".
#include <string>

#include "efield/bookshelf.hpp"
#include "efield/error.hpp"

namespace efield::test {

inline std::string load_error_message(const std::string& aux) {
  try {
    efield::load_bookshelf(aux);
  } catch (const efield::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace efield::test
