// The electric-potential op in PyTorch's operator library (namespace efield):
//   efield::electric_potential(Tensor pos, int handle) -> Tensor energy        (differentiable)
//   efield::electric_potential_forward(Tensor pos, int handle) -> (Tensor energy, Tensor grad)
//   efield::electric_potential_backward(Tensor grad_energy, Tensor grad) -> Tensor
// `handle` names a system of system_registry.hpp. The forward returns the energy and a new
// gradient tensor in pos's layout (the system writes zeros at terminals: zero_gap_gradient), so the
// ops are functional: torch.compile, AOTAutograd, CUDA graphs and opcheck see no hidden state.
// Autograd is registered in C++ (no Python per call); Meta kernels give the shapes to fake
// tensors. CUDA work runs on PyTorch's current stream. A failed check is a c10::Error (RuntimeError
// in Python); its message is formatted with the process's one libstdc++ (cmake/EfieldCxxRuntime.cmake).
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <Python.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#ifdef EFIELD_TORCH_OPS_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

#include <cstdint>
#include <mutex>
#include <tuple>

#include "system_registry.hpp"

namespace efield::torch_ops {
namespace {

// Releases the GIL (when the calling thread holds it) around a blocking evaluate.
class GilRelease {
 public:
  GilRelease() {
    if (Py_IsInitialized() && PyGILState_Check()) state_ = PyEval_SaveThread();
  }
  ~GilRelease() {
    if (state_) PyEval_RestoreThread(state_);
  }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  PyThreadState* state_ = nullptr;
};

void check_pos(const at::Tensor& pos, const RegisteredSystem& s) {
  const at::ScalarType want = s.ops.element_size == 4 ? at::kFloat : at::kDouble;
  TORCH_CHECK(pos.scalar_type() == want, "pos has dtype ", pos.scalar_type(), " but the op was made for ", want);
  const int device = pos.is_cuda() ? pos.get_device() : -1;
  TORCH_CHECK(pos.is_cpu() || pos.is_cuda(), "pos is on ", pos.device(), "; the op takes CPU and CUDA tensors");
  TORCH_CHECK(device == s.ops.device, "pos is on ", pos.device(), " but the op was made for ",
                    s.ops.device < 0 ? std::string("cpu") : "cuda:" + std::to_string(s.ops.device));
  TORCH_CHECK(pos.dim() == 1 && pos.numel() == 2 * s.num_nodes, "pos must be one-dimensional with 2 * num_nodes = ",
                    2 * s.num_nodes, " entries (got shape ", pos.sizes(), ")");
  TORCH_CHECK(pos.is_contiguous(), "pos is not contiguous; pass pos.contiguous()");
}

std::uintptr_t current_stream(const at::Tensor& pos) {
#ifdef EFIELD_TORCH_OPS_CUDA
  if (pos.is_cuda())
    return reinterpret_cast<std::uintptr_t>(c10::cuda::getCurrentCUDAStream(pos.get_device()).stream());
#endif
  (void)pos;
  return 0;
}

// CPU and CUDA: one evaluate of the registered system on pos.
std::tuple<at::Tensor, at::Tensor> forward_kernel(const at::Tensor& pos, std::int64_t handle) {
  const std::shared_ptr<RegisteredSystem> s = find_system(handle);
  check_pos(pos, *s);
  at::Tensor energy = at::empty({}, pos.options());
  at::Tensor grad = at::empty_like(pos, at::MemoryFormat::Contiguous);
  const bool async_wanted = s->asynchronous;
  char error[1024] = "";
  int r;
  {
    GilRelease release;  // before the lock: a thread waiting for it must not hold the GIL
    std::lock_guard<std::mutex> one_at_a_time(s->evaluate_mutex);
    r = s->ops.evaluate_flat(s->ops.system, pos.data_ptr(), grad.data_ptr(),
                             static_cast<std::size_t>(s->num_nodes) * s->ops.element_size, current_stream(pos),
                             energy.data_ptr(), s->results.defined() ? s->results.data_ptr() : nullptr,
                             async_wanted ? 1 : 0, error, sizeof(error));
    if (r >= 0) s->latest.store(r);
    if (r == 1) energy.copy_(s->result_energy);  // on the current stream, before another evaluate's results
  }
  TORCH_CHECK(r >= 0, "efield::electric_potential: ", error);
  return {energy, grad};
}

// Fake tensors (torch.compile, AOTAutograd, opcheck): shapes only.
std::tuple<at::Tensor, at::Tensor> forward_meta(const at::Tensor& pos, std::int64_t /*handle*/) {
  TORCH_CHECK(pos.dim() == 1, "pos must be one-dimensional (got shape ", pos.sym_sizes(), ")");
  return {at::empty({}, pos.options()), at::empty_like(pos, at::MemoryFormat::Contiguous)};
}

at::Tensor backward_composite(const at::Tensor& grad_energy, const at::Tensor& grad) { return grad_energy * grad; }

std::tuple<at::Tensor, at::Tensor> call_forward(const at::Tensor& pos, std::int64_t handle) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("efield::electric_potential_forward", "")
                             .typed<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, std::int64_t)>();
  return op.call(pos, handle);
}

at::Tensor call_backward(const at::Tensor& grad_energy, const at::Tensor& grad) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("efield::electric_potential_backward", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
  return op.call(grad_energy, grad);
}

// Below autograd (inference mode, fake tensors without grad): the energy alone.
at::Tensor electric_potential_plain(const at::Tensor& pos, std::int64_t handle) {
  return std::get<0>(call_forward(pos, handle));
}

class ElectricPotentialFunction : public torch::autograd::Function<ElectricPotentialFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& pos, std::int64_t handle) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [energy, grad] = call_forward(pos, handle);
    ctx->save_for_backward({grad});
    return energy;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const at::Tensor grad = ctx->get_saved_variables()[0];
    return {call_backward(grad_outputs[0], grad), at::Tensor()};
  }
};

at::Tensor electric_potential_autograd(const at::Tensor& pos, std::int64_t handle) {
  return ElectricPotentialFunction::apply(pos, handle);
}

}  // namespace

TORCH_LIBRARY(efield, m) {
  m.def("electric_potential(Tensor pos, int handle) -> Tensor");
  m.def("electric_potential_forward(Tensor pos, int handle) -> (Tensor, Tensor)");
  m.def("electric_potential_backward(Tensor grad_energy, Tensor grad) -> Tensor");
}

TORCH_LIBRARY_IMPL(efield, CPU, m) { m.impl("electric_potential_forward", &forward_kernel); }
#ifdef EFIELD_TORCH_OPS_CUDA
TORCH_LIBRARY_IMPL(efield, CUDA, m) { m.impl("electric_potential_forward", &forward_kernel); }
#endif
TORCH_LIBRARY_IMPL(efield, Meta, m) { m.impl("electric_potential_forward", &forward_meta); }

TORCH_LIBRARY_IMPL(efield, CompositeExplicitAutograd, m) { m.impl("electric_potential", &electric_potential_plain); }
TORCH_LIBRARY_IMPL(efield, Autograd, m) { m.impl("electric_potential", &electric_potential_autograd); }
TORCH_LIBRARY_IMPL(efield, CompositeImplicitAutograd, m) {
  m.impl("electric_potential_backward", &backward_composite);
}

}  // namespace efield::torch_ops
