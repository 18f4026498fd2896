#pragma once
// Runs an ElectrostaticSystem on a test design (host pointers) and compares everything it
// produces with the float64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "electrostatics/random_design.hpp"
#include "electrostatics/reference_electrostatics.hpp"
#include "support/random.hpp"

namespace efield::test {

// The design's options on the given backend and precision (two CPU threads).
inline ElectrostaticOptions with(ElectrostaticOptions o, Backend b, Precision p) {
  o.backend = b;
  o.precision = p;
  o.cpu_threads = 2;
  return o;
}

struct SystemOutput {
  EvaluateResult result;
  std::vector<double> gx, gy;  // per cell
  std::vector<double> rho, phi, ex, ey, fixed;
};

// The result of one evaluate with its gradients (in the caller's layout, host copies), plus
// every map the system hands out afterwards.
template <typename T>
SystemOutput collect_output(ElectrostaticSystem& es, const TestDesign& d, EvaluateResult result,
                            const std::vector<T>& gx, const std::vector<T>& gy) {
  SystemOutput out;
  out.result = result;
  out.gx = d.per_cell(gx);
  out.gy = d.per_cell(gy);
  out.rho = es.density_map();
  out.ex = es.field_x_map();
  out.ey = es.field_y_map();
  out.phi = es.potential_map();
  out.fixed = es.fixed_map();
  return out;
}

template <typename T>
SystemOutput run_host(ElectrostaticSystem& es, const TestDesign& d) {
  const std::vector<T> x = d.array<T>(d.cx), y = d.array<T>(d.cy);
  std::vector<T> gx = poisoned<T>(d.array_size), gy = poisoned<T>(d.array_size);
  const EvaluateResult result = es.evaluate(x.data(), y.data(), gx.data(), gy.data());
  return collect_output(es, d, result, gx, gy);
}

inline double rel_scalar(double a, double b) {
  if (!std::isfinite(a)) return INFINITY;
  return std::fabs(a - b) / std::max(std::fabs(b), 1e-300);
}

inline void expect_matches_reference(const SystemOutput& s, const ReferenceResult& r, double tol,
                                     const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_LE(relative_l2(s.fixed, r.fixed), tol) << "fixed map";
  EXPECT_LE(relative_l2(s.rho, r.rho), tol) << "density map";
  EXPECT_LE(relative_l2(s.phi, r.phi), tol) << "potential";
  EXPECT_LE(relative_l2(s.ex, r.ex), tol) << "Ex";
  EXPECT_LE(relative_l2(s.ey, r.ey), tol) << "Ey";
  EXPECT_LE(relative_l2(s.gx, r.gx), tol) << "grad x";
  EXPECT_LE(relative_l2(s.gy, r.gy), tol) << "grad y";
  EXPECT_LE(rel_scalar(s.result.energy, r.energy), tol) << "energy " << s.result.energy << " vs " << r.energy;
  EXPECT_LE(rel_scalar(s.result.overflow, r.overflow), tol)
      << "overflow " << s.result.overflow << " vs " << r.overflow;
  EXPECT_LE(rel_scalar(s.result.max_density, r.max_density), tol)
      << "max density " << s.result.max_density << " vs " << r.max_density;
}

// Another backend's or layout's output within `tol` (maps and gradients relative L2, scalars
// relative).
inline void expect_close(const SystemOutput& s, const SystemOutput& ref, double tol) {
  EXPECT_LE(relative_l2(s.rho, ref.rho), tol);
  EXPECT_LE(relative_l2(s.ex, ref.ex), tol);
  EXPECT_LE(relative_l2(s.ey, ref.ey), tol);
  EXPECT_LE(relative_l2(s.gx, ref.gx), tol);
  EXPECT_LE(relative_l2(s.gy, ref.gy), tol);
  EXPECT_LE(rel_scalar(s.result.energy, ref.result.energy), tol);
  EXPECT_LE(rel_scalar(s.result.overflow, ref.result.overflow), tol);
  EXPECT_LE(rel_scalar(s.result.max_density, ref.result.max_density), tol);
}

// Bitwise the same result, gradients and density map.
inline void expect_same_bits(const SystemOutput& a, const SystemOutput& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(std::memcmp(&a.result, &b.result, sizeof(EvaluateResult)), 0);
  EXPECT_EQ(a.rho, b.rho);
  EXPECT_EQ(a.gx, b.gx);
  EXPECT_EQ(a.gy, b.gy);
}

inline ReferenceResult reference_of(const TestDesign& d) {
  return reference_electrostatics(d.options, d.movable, d.fillers, d.fixed, d.cx, d.cy);
}

// The configurations every backend is checked on: odd and even bin counts, non-square bins,
// target density 1 and below, a DREAMPlace-like gap between movable cells and fillers.
inline std::vector<DesignSpec> reference_specs() {
  std::vector<DesignSpec> specs;
  DesignSpec a;  // 16 x 16, square bins, td 1
  specs.push_back(a);
  DesignSpec b;  // odd x even, non-square bins, td < 1, gap in the arrays
  b.M = 17;
  b.N = 24;
  b.xl = -30;
  b.yl = 12;
  b.xh = 140;
  b.yh = 100;
  b.td = 0.7;
  b.gap = 9;
  specs.push_back(b);
  DesignSpec c;  // 64 x 48
  c.M = 64;
  c.N = 48;
  c.xh = 320;
  c.yh = 480;
  c.td = 0.85;
  c.num_movable = 300;
  c.num_fillers = 100;
  c.num_fixed = 10;
  specs.push_back(c);
  DesignSpec e;  // odd x odd
  e.M = 15;
  e.N = 9;
  e.yh = 70;
  e.td = 0.9;
  specs.push_back(e);
  return specs;
}

}  // namespace efield::test
