// The CUDA pipeline's layout hook (pipeline_layout.hpp): one process-wide value, read when a CUDA
// system is constructed.
#include "electrostatics/pipeline_layout.hpp"

#include <mutex>

namespace efield::detail {
namespace {

std::mutex layout_mutex;
EsPipelineLayout current_layout;

}  // namespace

EsPipelineLayout set_es_pipeline_layout(const EsPipelineLayout& layout) {
  const std::lock_guard<std::mutex> lock(layout_mutex);
  const EsPipelineLayout before = current_layout;
  current_layout = layout;
  return before;
}

EsPipelineLayout es_pipeline_layout() {
  const std::lock_guard<std::mutex> lock(layout_mutex);
  return current_layout;
}

}  // namespace efield::detail
