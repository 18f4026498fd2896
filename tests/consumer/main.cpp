// Built against an installed efield: a 4x4 dct2 on the CPU backend, checked by its DC term.
#include <efield/efield.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  std::vector<double> x(16), y(16);
  double sum = 0;
  for (int i = 0; i < 16; ++i) sum += (x[i] = 0.25 * i + 1.0);
  efield::PlanOptions options;
  options.backend = efield::Backend::Cpu;
  efield::Plan2D<double> plan(efield::Transform2D::Dct2, 4, 4, options);
  plan.execute_host(x.data(), y.data());
  if (std::abs(y[0] - sum) > 1e-9) {
    std::fprintf(stderr, "dct2 DC term %f, expected %f\n", y[0], sum);
    return 1;
  }
  std::printf("consumer OK: efield::Plan2D<double> dct2 DC = %f\n", y[0]);
  return 0;
}
