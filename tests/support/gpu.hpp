#pragma once
// Every GPU test starts with EFIELD_REQUIRE_GPU(): without the CUDA backend or without a device
// it is reported as skipped, with the reason, so CI (no GPU) stays green and honest.
#include <gtest/gtest.h>

#include "efield/device.hpp"

#define EFIELD_REQUIRE_GPU()                                                              \
  do {                                                                                    \
    if (!::efield::built_with_cuda()) GTEST_SKIP() << "efield was built without CUDA";    \
    if (::efield::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device is present";  \
  } while (0)
