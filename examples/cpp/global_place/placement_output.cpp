#include "placement_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

namespace global_place {

void write_pl(const std::string& path, const efield::Design& design, const PlacementProblem& problem,
              const std::vector<double>& pos) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!f) throw efield::Error(path + ": cannot open for writing");
  std::vector<double> x = design.x, y = design.y;
  const int n = problem.num_cells();
  for (int i = 0; i < problem.num_movable; ++i) {
    x[problem.movable_nodes[i]] = pos[i];
    y[problem.movable_nodes[i]] = pos[n + i];
  }
  std::fprintf(f.get(), "UCLA pl 1.0\n# global placement by efield's examples/cpp/global_place\n\n");
  for (int i = 0; i < design.num_nodes(); ++i) {
    const char* fixed = design.kind[i] == efield::NodeKind::Fixed     ? " /FIXED"
                        : design.kind[i] == efield::NodeKind::FixedNI ? " /FIXED_NI"
                                                                      : "";
    std::fprintf(f.get(), "%s\t%.17g\t%.17g\t: %s%s\n", design.node_names[i].c_str(), x[i], y[i],
                 efield::to_string(design.orientation[i]), fixed);
  }
  if (std::ferror(f.get())) throw efield::Error(path + ": write failed");
}

namespace {

// Blends colour c into pixel (px, py) of the image with weight a.
void blend(efield::Image& img, int px, int py, const float c[3], float a) {
  const std::size_t at = static_cast<std::size_t>(img.height - 1 - py) * img.width + px;  // y up
  for (int ch = 0; ch < 3; ++ch) {
    float& v = img.channel(ch)[at];
    v = (1 - a) * v + a * c[ch];
  }
}

void draw_box(efield::Image& img, double sx, double sy, const efield::Region& r, double x, double y, double w, double h,
              const float c[3], float a) {
  const int x0 = std::clamp(static_cast<int>(std::floor((x - r.xl) * sx)), 0, img.width - 1);
  const int y0 = std::clamp(static_cast<int>(std::floor((y - r.yl) * sy)), 0, img.height - 1);
  const int x1 = std::clamp(static_cast<int>(std::ceil((x + w - r.xl) * sx)) - 1, x0, img.width - 1);
  const int y1 = std::clamp(static_cast<int>(std::ceil((y + h - r.yl) * sy)) - 1, y0, img.height - 1);
  for (int py = y0; py <= y1; ++py)
    for (int px = x0; px <= x1; ++px) blend(img, px, py, c, a);
}

}  // namespace

void write_placement_png(const std::string& path, const PlacementProblem& problem, const std::vector<double>& pos,
                         int max_side) {
  const efield::Region& r = problem.region;
  const double scale = max_side / std::max(r.width(), r.height());
  efield::Image img;
  img.width = std::max(1, static_cast<int>(std::lround(r.width() * scale)));
  img.height = std::max(1, static_cast<int>(std::lround(r.height() * scale)));
  img.channels = 3;
  img.pixels.assign(img.plane_size() * 3, 255.0f);
  const double sx = img.width / r.width(), sy = img.height / r.height();
  const float grey[3] = {120, 120, 120}, blue[3] = {30, 70, 200};
  for (int k = 0; k < static_cast<int>(problem.fixed.widths.size()); ++k)
    draw_box(img, sx, sy, r, problem.fixed.x[k], problem.fixed.y[k], problem.fixed.widths[k], problem.fixed.heights[k],
             grey, 0.8f);
  const int n = problem.num_cells();
  for (int i = 0; i < problem.num_movable; ++i)
    draw_box(img, sx, sy, r, pos[i], pos[n + i], problem.width[i], problem.height[i], blue, 0.35f);
  for (float& v : img.pixels) v = std::round(v);
  efield::write_png(path, img);
}

}  // namespace global_place
