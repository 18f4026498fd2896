// The broken-file corpus (tests/data/bookshelf/<case>/): each case must be rejected with an
// efield::Error whose message names the file, the line (where there is one) and the problem.
// None may crash; the CRLF and CR copies must load (test_bookshelf_loader checks them).
#include <gtest/gtest.h>

#include <string>

#include "bookshelf/load_error.hpp"
#include "efield/bookshelf.hpp"
#include "efield/error.hpp"

namespace {

const std::string kCorpus = EFIELD_TEST_DATA_DIR "/bookshelf";

struct BrokenCase {
  const char* name;      // folder and .aux base name
  const char* where;     // "<file>:<line>:" (or "<file>:" for whole-file problems) the message must hold
  const char* problem;   // the part of the message that says what is wrong
};

const BrokenCase kCases[] = {
    {"truncated_nodes_line", "truncated_nodes_line.nodes:14:", "expected the node height but the line ends"},
    {"truncated_nodes_count", "truncated_nodes_count.nodes:5:", "NumNodes says 8 but the file holds 6 nodes (is it truncated?)"},
    {"truncated_nets", "truncated_nets.nets: at end of file", "net 'n2' declares 3 pins but has only 1; is the file truncated?"},
    {"scl_missing_end", "scl_missing_end.scl: at end of file", "the row starting at line 26 has no 'End'"},
    {"wrong_count_nets", "wrong_count_nets.nets:4:", "NumNets says 5 but the file holds 4 nets"},
    {"wrong_count_pins", "wrong_count_pins.nets:5:", "NumPins says 11 but the file holds 10 pins"},
    {"wrong_count_terminals", "wrong_count_terminals.nodes:6:", "NumTerminals says 2 but the file holds 3 terminals"},
    {"wrong_count_rows", "wrong_count_rows.scl:5:", "NumRows says 4 but the file holds 3 rows"},
    {"huge_count", "huge_count.nodes:5:", "NumNodes says 2000000000 but the file holds 8 nodes"},
    {"too_few_pins", "too_few_pins.nets:11:", "net 'n0' declares 4 pins but has only 3"},
    {"bad_number_nodes", "bad_number_nodes.nodes:9:", "expected the node height (a number), got 'ten'"},
    {"bad_number_pl", "bad_number_pl.pl:4:", "expected the x coordinate (a number), got '20.5.1'"},
    {"bad_number_scl", "bad_number_scl.scl:9:", "expected the row's Height (a number), got '1O'"},
    {"nan_size", "nan_size.nodes:7:", "expected the node width (a number), got 'nan'"},
    {"negative_size", "negative_size.nodes:10:", "node 'a3' has a negative size"},
    {"duplicate_node", "duplicate_node.nodes:8:", "node 'a0' is defined twice"},
    {"unknown_node_nets", "unknown_node_nets.nets:13:", "unknown node 'zz9' (not in the .nodes file)"},
    {"unknown_node_pl", "unknown_node_pl.pl:6:", "unknown node 'a33' (not in the .nodes file)"},
    {"bad_direction", "bad_direction.nets:12:", "expected the pin direction I, O or B, got 'X'"},
    {"bad_orientation", "bad_orientation.pl:3:", "expected an orientation (N, S, E, W, FN, FS, FE, FW), got 'Q'"},
    {"wrong_header", "wrong_header.nodes:1:", "expected the header 'UCLA nodes 1.0'"},
    {"binary_junk", "binary_junk.scl:2:", "unexpected binary byte 0x89 (not a text file?)"},
    {"empty_nodes", "empty_nodes.nodes: empty file:", "no 'NumNodes : <count>' line"},
    {"missing_file", "missing_file/missing.pl: cannot open file", "(named in "},
    {"no_nets", "no_nets.aux:", "names no .nets file"},
    {"scl_overflow", "scl_overflow.scl:12:", "the row starting at line 6 reaches past the largest double"},
};

std::string message_of(const std::string& aux) { return efield::test::load_error_message(aux); }

class BrokenBookshelf : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenBookshelf, IsRejectedWithFileLineAndProblem) {
  const BrokenCase& c = GetParam();
  const std::string message = message_of(kCorpus + "/" + c.name + "/" + c.name + ".aux");
  EXPECT_NE(message.find(c.where), std::string::npos) << "message: " << message;
  EXPECT_NE(message.find(c.problem), std::string::npos) << "message: " << message;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BrokenBookshelf, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<BrokenCase>& info) { return std::string(info.param.name); });

TEST(BrokenBookshelfPath, EmbeddedNulIsRefused) {
  // The C library would stop at the NUL and open tiny.aux.
  const std::string path = kCorpus + "/valid/tiny.aux" + std::string(1, '\0') + "junk";
  const std::string message = message_of(path);
  EXPECT_NE(message.find("the path holds a NUL byte"), std::string::npos) << "message: " << message;
}

TEST(BrokenBookshelfAux, MissingEmptyAndIncompleteAux) {
  EXPECT_NE(message_of(kCorpus + "/does_not_exist.aux").find("does_not_exist.aux: cannot open file"), std::string::npos);
  EXPECT_NE(message_of(kCorpus + "/empty_aux.aux").find("empty_aux.aux: empty file: expected 'RowBasedPlacement"),
            std::string::npos);
  // The missing-file message names the .aux line that asked for the file.
  EXPECT_NE(message_of(kCorpus + "/missing_file/missing_file.aux").find("missing_file.aux:1)"), std::string::npos);
}

}  // namespace

// Every prefix of every file of the tiny design, and random byte changes, either load or raise
// efield::Error: never a crash, never another exception.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "support/random.hpp"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Removes the file first: rewriting it in place (O_TRUNC) makes ext4 flush it to disk on every
// close, which turns this test's thousands of writes into seconds of waiting.
void spit(const std::string& path, const std::string& bytes) {
  std::remove(path.c_str());
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(BrokenBookshelfFuzz, TruncationsAndByteChangesNeverCrash) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 gen(seed);
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("efield_bookshelf_fuzz_" + std::to_string(seed));
  std::filesystem::create_directories(dir);
  const char* exts[] = {"nodes", "nets", "wts", "pl", "scl"};
  for (const char* ext : exts)
    spit((dir / (std::string("tiny.") + ext)).string(), slurp(kCorpus + "/valid/tiny." + ext));
  spit((dir / "tiny.aux").string(), slurp(kCorpus + "/valid/tiny.aux"));
  const std::string aux = (dir / "tiny.aux").string();
  int loaded = 0, rejected = 0;
  const auto attempt = [&] {
    try {
      efield::load_bookshelf(aux).check_consistent();
      ++loaded;
    } catch (const efield::Error&) {
      ++rejected;
    }
  };
  for (const char* ext : exts) {
    const std::string path = (dir / (std::string("tiny.") + ext)).string();
    const std::string original = slurp(path);
    for (std::size_t cut = 0; cut < original.size(); ++cut) {
      spit(path, original.substr(0, cut));
      ASSERT_NO_FATAL_FAILURE(attempt());
    }
    std::uniform_int_distribution<std::size_t> where(0, original.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int k = 0; k < 200; ++k) {
      std::string changed = original;
      for (int m = 0; m < 3; ++m) changed[where(gen)] = static_cast<char>(byte(gen));
      spit(path, changed);
      ASSERT_NO_FATAL_FAILURE(attempt());
    }
    spit(path, original);
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(loaded, 0);  // e.g. the cuts inside trailing comments of the .wts file
  std::filesystem::remove_all(dir);
}

}  // namespace
