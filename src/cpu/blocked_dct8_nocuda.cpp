// Stand-in for the CUDA backend of BlockedDct8 in a build without CUDA. Unreachable through the
// plan (resolve_backend refuses Backend::Cuda first); kept so that the library links.
#include "blocked_dct8/blocked_dct8_cuda.hpp"
#include "efield/error.hpp"

namespace efield::detail {

template <typename T>
BlockedDct8Cuda<T>::BlockedDct8Cuda(int, int) : rows_(0), cols_(0) {
  throw Error("BlockedDct8: Backend::Cuda requested, but efield was built without CUDA");
}
template <typename T>
BlockedDct8Cuda<T>::~BlockedDct8Cuda() = default;
template <typename T>
void BlockedDct8Cuda<T>::run(bool, const T*, T*, T, void*) {
  throw Error("BlockedDct8: efield was built without CUDA");
}
template <typename T>
void BlockedDct8Cuda<T>::run_host(bool, const T*, T*, T) {
  throw Error("BlockedDct8: efield was built without CUDA");
}

template class BlockedDct8Cuda<float>;
template class BlockedDct8Cuda<double>;

}  // namespace efield::detail
