#pragma once
// expect_error(f, needle): f throws an efield::Error whose message holds `needle`.
#include <gtest/gtest.h>

#include <string>

#include "efield/error.hpp"

namespace efield::test {

template <typename F>
void expect_error(F&& f, const char* needle) {
  try {
    f();
    ADD_FAILURE() << "no efield::Error (expected one mentioning '" << needle << "')";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace efield::test
