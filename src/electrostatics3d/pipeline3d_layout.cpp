// The CUDA 3D pipeline's layout hook (pipeline3d_layout.hpp): one process-wide value, read when a
// CUDA 3D system is constructed.
#include "electrostatics3d/pipeline3d_layout.hpp"

#include <mutex>

namespace efield::detail {
namespace {

std::mutex layout_mutex;
Es3DPipelineLayout current_layout;

}  // namespace

Es3DPipelineLayout set_es3d_pipeline_layout(const Es3DPipelineLayout& layout) {
  const std::lock_guard<std::mutex> lock(layout_mutex);
  const Es3DPipelineLayout before = current_layout;
  current_layout = layout;
  return before;
}

Es3DPipelineLayout es3d_pipeline_layout() {
  const std::lock_guard<std::mutex> lock(layout_mutex);
  return current_layout;
}

}  // namespace efield::detail
