#pragma once
// Internal: one process-wide value that several threads may set and read (the pipelines' layout
// hooks), each access under its own lock.
#include <mutex>

namespace efield::detail {

template <typename T>
class ProcessSetting {
 public:
  // Stores value; returns the one before.
  T exchange(const T& value) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const T before = value_;
    value_ = value;
    return before;
  }
  T get() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return value_;
  }

 private:
  mutable std::mutex mutex_;
  T value_{};
};

}  // namespace efield::detail
