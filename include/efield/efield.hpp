#pragma once
// Umbrella header: everything a placer or a transform user needs.
#include "efield/blocked_dct8.hpp"
#include "efield/bookshelf.hpp"
#include "efield/device.hpp"
#include "efield/error.hpp"
#include "efield/image_compression.hpp"
#include "efield/log.hpp"
#include "efield/electrostatic_system.hpp"
#include "efield/multi_field_system.hpp"
#include "efield/placement_helpers.hpp"
#include "efield/placement_netlist.hpp"
#include "efield/synthetic_design.hpp"
#include "efield/transforms.hpp"
