// The built-in standard-cell width distribution: one row high, 3 to 77 sites wide, most cells
// between 5 and 30 sites, a few wide ones (mean about 15 sites). Our own table, shaped like the
// cell libraries of the ISPD2005 designs (many small gates, a tail of wide flip-flops and buffers).
#include "synthetic/generator_steps.hpp"

namespace efield::synthetic {
namespace {

struct WidthWeight {
  double sites;
  double weight;
};

constexpr WidthWeight kWidths[] = {
    {3, 0.5}, {4, 2},  {5, 6},  {6, 7},  {7, 6},  {8, 13}, {9, 7},  {10, 5}, {11, 5},   {12, 5},
    {13, 9},  {14, 4}, {15, 4}, {16, 8}, {17, 3}, {19, 2}, {20, 5}, {22, 2}, {24, 10},  {27, 1.5},
    {29, 6},  {31, 1.5}, {34, 0.6}, {39, 0.4}, {45, 0.2}, {51, 0.1}, {64, 0.05}, {77, 0.03}};

}  // namespace

double builtin_width_sites(RandomStream& rng) {
  double total = 0;
  for (const auto& w : kWidths) total += w.weight;
  double u = rng.uniform() * total;
  for (const auto& w : kWidths) {
    if (u < w.weight) return w.sites;
    u -= w.weight;
  }
  return kWidths[0].sites;
}

}  // namespace efield::synthetic
