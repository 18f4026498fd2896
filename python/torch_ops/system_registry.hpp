#pragma once
// The systems the compiled op may evaluate, by handle: efield.torch registers a system's table
// (python/src/system_ops.hpp) and passes the handle to the op, which looks it up here, so a
// stale or made-up handle is an error, never a dangling pointer. Handles are never reused.
#include <ATen/ATen.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "system_ops.hpp"

namespace efield::torch_ops {

struct RegisteredSystem {
  explicit RegisteredSystem(const python::SystemOps& table) : ops(table) {}
  ~RegisteredSystem() {
    if (ops.system) ops.release(ops.system);
  }
  RegisteredSystem(const RegisteredSystem&) = delete;
  RegisteredSystem& operator=(const RegisteredSystem&) = delete;

  python::SystemOps ops;          // owns one reference to the system
  std::int64_t num_nodes = 0;     // pos holds 2 * num_nodes entries
  bool asynchronous = false;      // CUDA: never wait for the device (evaluate_async)
  at::Tensor results;             // CUDA: the asynchronous evaluate's float64 results
  at::Tensor result_energy;       // CUDA: results[0], the view made once (the forward copies from it)
  std::atomic<int> latest{-1};      // the latest evaluate: -1 none yet, 0 blocking, 1 asynchronous
  std::mutex evaluate_mutex;        // one evaluate at a time: a system is not safe from two threads
};

// Takes over the table's reference (the table's system is null afterwards). Throws when the
// system cannot take a pos of 2 * num_nodes entries.
std::int64_t register_system(python::SystemOps& table, std::int64_t num_nodes, bool asynchronous);
// Drops the registry's entry; evaluates running on it finish first (they hold it).
void unregister_system(std::int64_t handle);
// The entry of a handle; throws (c10::Error: a RuntimeError in Python) naming the handle when it is
// not registered.
std::shared_ptr<RegisteredSystem> find_system(std::int64_t handle);

}  // namespace efield::torch_ops
