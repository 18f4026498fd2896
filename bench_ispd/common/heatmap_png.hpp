#pragma once
// Heat maps of bin maps ([num_bins_x][num_bins_y], x first) as PNG files, x to the right and y
// up, through stb_image_write. Without stb (EFIELD_HAS_STB=0) writing throws efield::Error.
#include <string>
#include <vector>

namespace efield::bench {

bool png_supported() noexcept;

// Colours from the map's minimum (dark blue) to its maximum (dark red).
void write_heatmap_png(const std::string& path, const std::vector<double>& map, int num_bins_x, int num_bins_y);

}  // namespace efield::bench
