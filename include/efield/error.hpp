#pragma once
// The one exception type of efield. Every error names the input and the problem; parser errors
// also name the file and the line; CUDA and cuFFT errors name the call, file and line.
#include <stdexcept>
#include <string>

namespace efield {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace efield
