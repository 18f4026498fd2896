#pragma once
// Internal: the batched CUDA pipeline of MultiFieldSystem (MultiFieldPipeline::Batched,
// batched_multi_field.cu); make_cuda_multi_field (multi_field_cuda.cu) picks it.
#include <memory>

#include "multi_field/multi_field_backend.hpp"

namespace efield::detail {

std::unique_ptr<MultiFieldBackend> make_batched_multi_field(MultiFieldLayout layout);

}  // namespace efield::detail
