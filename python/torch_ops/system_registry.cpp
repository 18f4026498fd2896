#include "system_registry.hpp"

#include <c10/util/Exception.h>

#include <mutex>
#include <unordered_map>

namespace efield::torch_ops {
namespace {

struct Registry {
  std::mutex mutex;
  std::int64_t next = 1;
  std::unordered_map<std::int64_t, std::shared_ptr<RegisteredSystem>> entries;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: entries may outlive static destruction order
  return *r;
}

}  // namespace

std::int64_t register_system(python::SystemOps& table, std::int64_t num_nodes, bool asynchronous) {
  TORCH_CHECK(table.system && table.evaluate_flat && table.evaluate && table.release,
              "the system's table was already taken");
  TORCH_CHECK(num_nodes >= table.required_length, "pos of ", num_nodes, " nodes is too short for the system (",
                    table.required_length, " needed)");
  auto entry = std::make_shared<RegisteredSystem>(table);
  table.system = nullptr;  // the entry owns the reference now
  entry->num_nodes = num_nodes;
  entry->asynchronous = asynchronous && table.device >= 0;
  if (table.device >= 0) {
    entry->results =
        at::zeros({table.result_values}, at::TensorOptions().dtype(at::kDouble).device(at::kCUDA, table.device));
    entry->result_energy = entry->results[0];
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const std::int64_t handle = r.next++;
  r.entries.emplace(handle, std::move(entry));
  return handle;
}

void unregister_system(std::int64_t handle) {
  std::shared_ptr<RegisteredSystem> dropped;  // released outside the lock
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.entries.find(handle);
  if (it == r.entries.end()) return;
  dropped = std::move(it->second);
  r.entries.erase(it);
}

std::shared_ptr<RegisteredSystem> find_system(std::int64_t handle) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.entries.find(handle);
  TORCH_CHECK(it != r.entries.end(), "efield::electric_potential: no system is registered under handle ", handle,
                    " (its ElectricPotential was deleted, or the handle was not made by efield.torch)");
  return it->second;
}

}  // namespace efield::torch_ops
