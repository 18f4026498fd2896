#pragma once
// Umbrella header: everything a placer or a transform user needs.
#include "efield/device.hpp"
#include "efield/error.hpp"
#include "efield/log.hpp"
#include "efield/electrostatic_system.hpp"
#include "efield/placement_helpers.hpp"
#include "efield/transforms.hpp"
