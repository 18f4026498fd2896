// The CUDA pipeline's layout hook (pipeline_layout.hpp): one process-wide value, read when a CUDA
// system is constructed.
#include "electrostatics/pipeline_layout.hpp"

#include "common/process_setting.hpp"

namespace efield::detail {
namespace {
ProcessSetting<EsPipelineLayout> current_layout;
}  // namespace

EsPipelineLayout set_es_pipeline_layout(const EsPipelineLayout& layout) { return current_layout.exchange(layout); }
EsPipelineLayout es_pipeline_layout() { return current_layout.get(); }

}  // namespace efield::detail
