// Auto's policy table (src/transforms/cuda2d_policy.cpp) and the CUDA 2D methods' registry
// (cuda2d_registry.cpp), on the host: on compute capability 9.x the table makes exactly the
// choices frozen in tests/data/transforms/auto_method_sm90.txt (first those of the if-chain it replaced), on
// other GPUs only methods that take any size; every method the table names has a registry row,
// and each row's rule rejects the shapes its error message names.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "efield/error.hpp"
#include "transforms/cuda2d_policy.hpp"
#include "transforms/cuda2d_registry.hpp"

namespace efield::test {
namespace {

using detail::choose_cuda_2d_method;
using detail::Scalar;

constexpr Transform2D kKinds[] = {Transform2D::Dct2, Transform2D::Idct2, Transform2D::IdctIdxst,
                                  Transform2D::IdxstIdct};

// The frozen grid: its sizes and, per (precision, transform), one letter per (rows, cols).
struct FrozenChoices {
  std::vector<int> sizes;
  std::map<std::string, std::vector<std::string>> blocks;  // "float dct2" -> one line per row count
};

FrozenChoices read_frozen(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  FrozenChoices f;
  std::string line, block;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "sizes") {
      for (int s; words >> s;) f.sizes.push_back(s);
    } else if (first == "float" || first == "double") {
      std::string kind;
      words >> kind;
      block = first + " " + kind;
    } else {
      std::string letters;
      words >> letters;
      f.blocks[block].push_back(letters);
    }
  }
  return f;
}

Cuda2DMethod method_of_letter(char c) {
  switch (c) {
    case 'O': return Cuda2DMethod::OneFft;
    case 'R': return Cuda2DMethod::RowFftColumnPass;
    case '2': return Cuda2DMethod::TwoPasses;
    case '3': return Cuda2DMethod::ThreePasses;
    case 'P': return Cuda2DMethod::PackedFft;
    case 'T': return Cuda2DMethod::TransposedPackedFft;
    case 'F': return Cuda2DMethod::PrimeFactorFft;
  }
  ADD_FAILURE() << "unknown letter '" << c << "'";
  return Cuda2DMethod::Auto;
}

TEST(Cuda2DPolicy, MakesTheFrozenChoicesOnComputeCapability9) {
  const FrozenChoices frozen = read_frozen(EFIELD_TEST_DATA_DIR "/transforms/auto_method_sm90.txt");
  ASSERT_FALSE(frozen.sizes.empty());
  ASSERT_EQ(frozen.blocks.size(), 8u);
  int compared = 0;
  for (const char* precision : {"float", "double"}) {
    const Scalar scalar = std::string(precision) == "float" ? Scalar::Float : Scalar::Double;
    for (Transform2D kind : kKinds) {
      const auto& lines = frozen.blocks.at(std::string(precision) + " " + to_string(kind));
      ASSERT_EQ(lines.size(), frozen.sizes.size());
      for (std::size_t r = 0; r < lines.size(); ++r) {
        ASSERT_EQ(lines[r].size(), frozen.sizes.size());
        for (std::size_t c = 0; c < lines[r].size(); ++c) {
          const int rows = frozen.sizes[r], cols = frozen.sizes[c];
          const Cuda2DMethod expected = method_of_letter(lines[r][c]);
          for (int cc : {90, 99}) {
            EXPECT_EQ(choose_cuda_2d_method(cc, scalar, kind, rows, cols), expected)
                << precision << " " << to_string(kind) << " " << rows << "x" << cols << " on cc " << cc;
          }
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 8 * static_cast<int>(frozen.sizes.size() * frozen.sizes.size()));
}

// The table's rows read one by one (the same choices are in the frozen grid).
TEST(Cuda2DPolicy, NamedShapesOnComputeCapability9) {
  auto method = [](Scalar s, Transform2D kind, int rows, int cols) {
    return choose_cuda_2d_method(90, s, kind, rows, cols);
  };
  const Scalar f = Scalar::Float, d = Scalar::Double;
  EXPECT_EQ(method(f, Transform2D::Idct2, 2048, 2048), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(f, Transform2D::Idct2, 4096, 1024), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(f, Transform2D::IdctIdxst, 1024, 4096), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(f, Transform2D::Dct2, 2048, 2048), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(d, Transform2D::Dct2, 2048, 2048), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(d, Transform2D::Idct2, 2048, 2048), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(f, Transform2D::Dct2, 1024, 1024), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(f, Transform2D::Dct2, 4096, 4096), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(d, Transform2D::IdctIdxst, 8192, 8192), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(f, Transform2D::Idct2, 8192, 256), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(f, Transform2D::Dct2, 4096, 128), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(d, Transform2D::Dct2, 4096, 256), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(f, Transform2D::Dct2, 4096, 1024), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(f, Transform2D::IdctIdxst, 8192, 512), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(f, Transform2D::Idct2, 4096, 2048), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(d, Transform2D::IdxstIdct, 4096, 1024), Cuda2DMethod::ThreePasses);
  EXPECT_EQ(method(f, Transform2D::Dct2, 2048, 1024), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(d, Transform2D::Dct2, 2048, 1024), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(f, Transform2D::IdxstIdct, 1024, 1024), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(f, Transform2D::Idct2, 512, 512), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(d, Transform2D::Idct2, 1024, 1024), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(d, Transform2D::Dct2, 512, 8192), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(d, Transform2D::Dct2, 512, 512), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(f, Transform2D::Dct2, 256, 256), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(d, Transform2D::Dct2, 256, 256), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 128, 128), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(d, Transform2D::Dct2, 512, 1000), Cuda2DMethod::RowFftColumnPass);
  EXPECT_EQ(method(f, Transform2D::IdctIdxst, 1024, 3000), Cuda2DMethod::PackedFft);
  EXPECT_EQ(method(d, Transform2D::Idct2, 256, 1000), Cuda2DMethod::RowFftColumnPass);
  EXPECT_EQ(method(f, Transform2D::Idct2, 5000, 200), Cuda2DMethod::PrimeFactorFft);
  EXPECT_EQ(method(f, Transform2D::Idct2, 8000, 150), Cuda2DMethod::TransposedPackedFft);
  EXPECT_EQ(method(d, Transform2D::IdctIdxst, 1024, 3000), Cuda2DMethod::PackedFft);
  EXPECT_EQ(method(f, Transform2D::Idct2, 2048, 512), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 1000, 1024), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(d, Transform2D::IdxstIdct, 10000, 100), Cuda2DMethod::PrimeFactorFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 10000, 100), Cuda2DMethod::PrimeFactorFft);
  EXPECT_EQ(method(d, Transform2D::Idct2, 6000, 300), Cuda2DMethod::PrimeFactorFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 2000, 1000), Cuda2DMethod::PrimeFactorFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 20000, 500), Cuda2DMethod::PrimeFactorFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 12000, 200), Cuda2DMethod::PrimeFactorFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 3000, 300), Cuda2DMethod::TransposedPackedFft);
  EXPECT_EQ(method(f, Transform2D::Idct2, 6000, 300), Cuda2DMethod::TransposedPackedFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 2048, 100), Cuda2DMethod::TransposedPackedFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 4096, 4000), Cuda2DMethod::PackedFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 100, 10000), Cuda2DMethod::PackedFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 20000, 4000), Cuda2DMethod::PackedFft);
  EXPECT_EQ(method(d, Transform2D::Dct2, 100, 300), Cuda2DMethod::PackedFft);
  EXPECT_EQ(method(f, Transform2D::Dct2, 10001, 100), Cuda2DMethod::OneFft);  // an odd row count
  EXPECT_EQ(method(f, Transform2D::Idct2, 300, 255), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(f, Transform2D::Idct2, 300, 1001), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(d, Transform2D::Dct2, 3000, 1), Cuda2DMethod::OneFft);  // planned as 1 x 3000
  EXPECT_EQ(method(f, Transform2D::Dct2, 1024, 100), Cuda2DMethod::OneFft);
}

// GPUs the table was not measured on: PackedFft where a long row that is not a power of two
// makes cuFFT split its R2C in a pass of its own, OneFft everywhere else.
TEST(Cuda2DPolicy, OtherGpusGetOnlyTheAnySizeMethods) {
  const std::vector<int> sizes{1, 2, 7, 64, 100, 128, 255, 256, 300, 512, 1000, 1024, 2048, 3000, 4096, 10000};
  for (int cc : {0, 60, 70, 75, 80, 86, 89, 100, 120}) {
    for (Scalar scalar : {Scalar::Float, Scalar::Double}) {
      for (Transform2D kind : kKinds) {
        for (int rows : sizes) {
          for (int cols : sizes) {
            const bool packed = rows >= 100 && cols >= 256 && (cols & (cols - 1)) != 0 && cols % 2 == 0;
            EXPECT_EQ(choose_cuda_2d_method(cc, scalar, kind, rows, cols),
                      packed ? Cuda2DMethod::PackedFft : Cuda2DMethod::OneFft)
                << to_string(kind) << " " << rows << "x" << cols << " on cc " << cc;
          }
        }
      }
    }
  }
}

TEST(Cuda2DPolicy, EveryRowNamesARegisteredMethodAndTheLastTakesEverything) {
  const auto& policy = detail::cuda_2d_policy();
  ASSERT_FALSE(policy.empty());
  for (const auto& row : policy) {
    EXPECT_NE(row.method, Cuda2DMethod::Auto);
    EXPECT_NO_THROW(detail::cuda_2d_solver(row.method)) << to_string(row.method);
    EXPECT_LE(row.min_cc, row.max_cc);
    EXPECT_LE(row.rows.min, row.rows.max);
    EXPECT_LE(row.cols.min, row.cols.max);
  }
  const auto& last = policy.back();
  EXPECT_EQ(last.method, Cuda2DMethod::OneFft);
  EXPECT_EQ(last.min_cc, 0);
  EXPECT_EQ(last.max_cc, detail::kNoLimit);
  EXPECT_EQ(last.scalar, detail::ForScalar::Any);
  EXPECT_EQ(last.direction, detail::ForDirection::Any);
  EXPECT_FALSE(last.cols_not_power_of_two);
  EXPECT_EQ(last.rows.min, 1);
  EXPECT_EQ(last.cols.min, 1);
}

// "RowFftColumnPass" -> "row_fft_column_pass": the registry's name is to_string's in C++ spelling.
std::string snake_case(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (std::isupper(static_cast<unsigned char>(c)) && !out.empty()) out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

TEST(Cuda2DRegistry, OneRowPerMethodButAuto) {
  const auto& solvers = detail::cuda_2d_solvers();
  EXPECT_EQ(solvers.size(), 7u);
  for (const auto& s : solvers) {
    EXPECT_NE(s.method, Cuda2DMethod::Auto);
    EXPECT_EQ(&detail::cuda_2d_solver(s.method), &s);
    EXPECT_EQ(snake_case(s.name), to_string(s.method));
    EXPECT_NE(s.make_float, nullptr);
    EXPECT_NE(s.make_double, nullptr);
    EXPECT_FALSE(s.requirement.empty());
  }
  EXPECT_THROW(detail::cuda_2d_solver(Cuda2DMethod::Auto), Error);
  EXPECT_THROW(detail::cuda_2d_solver(static_cast<Cuda2DMethod>(99)), Error);
}

}  // namespace
}  // namespace efield::test
