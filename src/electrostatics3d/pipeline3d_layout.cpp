// The CUDA 3D pipeline's layout hook (pipeline3d_layout.hpp): one process-wide value, read when a
// CUDA 3D system is constructed.
#include "electrostatics3d/pipeline3d_layout.hpp"

#include "common/process_setting.hpp"

namespace efield::detail {
namespace {
ProcessSetting<Es3DPipelineLayout> current_layout;
}  // namespace

Es3DPipelineLayout set_es3d_pipeline_layout(const Es3DPipelineLayout& layout) {
  return current_layout.exchange(layout);
}
Es3DPipelineLayout es3d_pipeline_layout() { return current_layout.get(); }

}  // namespace efield::detail
