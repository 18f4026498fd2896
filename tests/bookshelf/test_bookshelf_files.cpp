// What the Bookshelf loader accepts as a file: regular files only (a directory, a device or a FIFO
// is a clear efield::Error, and a FIFO never hangs the loader), read no further than its size, and
// running out of memory is an efield::Error naming the allocation and its size.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "bookshelf/load_error.hpp"
#include "efield/bookshelf.hpp"
#include "efield/error.hpp"

namespace {

namespace fs = std::filesystem;

// A fresh folder holding a one-node design whose files are named in `files` order
// (nodes, nets, wts, pl, scl); each entry is a file name in the folder or an absolute path.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name) : dir(fs::path(::testing::TempDir()) / ("efield_files_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    write("d.nodes", "UCLA nodes 1.0\nNumNodes : 1\nNumTerminals : 0\na 2 1\n");
    write("d.nets", "UCLA nets 1.0\nNumNets : 0\nNumPins : 0\n");
    write("d.wts", "UCLA wts 1.0\n");
    write("d.pl", "UCLA pl 1.0\na 0 0 : N\n");
    write("d.scl",
          "UCLA scl 1.0\nNumRows : 1\nCoreRow Horizontal\n Coordinate : 0\n Height : 1\n Sitewidth : 1\n"
          " Sitespacing : 1\n SubrowOrigin : 0 NumSites : 10\nEnd\n");
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
  }
  // The .aux naming these files; returns its path.
  std::string aux(const std::string& nodes, const std::string& nets = "d.nets", const std::string& pl = "d.pl") const {
    write("d.aux", "RowBasedPlacement : " + nodes + " " + nets + " d.wts " + pl + " d.scl\n");
    return (dir / "d.aux").string();
  }
};

std::string message_of(const std::string& aux) { return efield::test::load_error_message(aux); }

TEST(BookshelfFiles, TheScratchDesignLoads) {
  Scratch s("valid");
  const efield::Design d = efield::load_bookshelf(s.aux("d.nodes"));
  EXPECT_EQ(d.num_nodes(), 1);
  EXPECT_EQ(d.rows.size(), 1u);
}

TEST(BookshelfFiles, ADirectoryIsNotAFile) {
  Scratch s("directory");
  fs::create_directories(s.dir / "sub.nodes");
  const std::string m = message_of(s.aux("sub.nodes"));
  EXPECT_NE(m.find("sub.nodes: is a directory, not a regular file"), std::string::npos) << m;
  EXPECT_NE(m.find("(named in "), std::string::npos) << m;
  // The .aux path itself.
  const std::string m2 = message_of(s.dir.string());
  EXPECT_NE(m2.find("is a directory, not a regular file"), std::string::npos) << m2;
}

TEST(BookshelfFiles, ADeviceIsNotAFile) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero here";
  Scratch s("device");
  // The .aux recognises files by extension: a link named zero.nodes leads to /dev/zero, which
  // would otherwise be read until memory runs out.
  fs::create_symlink("/dev/zero", s.dir / "zero.nodes");
  const std::string m = message_of(s.aux("zero.nodes"));
  EXPECT_NE(m.find("zero.nodes: is a character device, not a regular file"), std::string::npos) << m;
}

// A FIFO with no writer would block an open() for reading forever; the loader must refuse it
// without opening it. Run in a child process with an alarm so that a regression fails the test
// (killed by SIGALRM) instead of hanging the suite.
void load_under_alarm(const std::string& aux) {
  alarm(20);
  try {
    efield::load_bookshelf(aux);
    std::fprintf(stderr, "no error\n");
  } catch (const efield::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
  }
  std::exit(0);
}

TEST(BookshelfFilesDeathTest, AFifoIsRefusedWithoutHanging) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Scratch s("fifo");
  ASSERT_EQ(::mkfifo((s.dir / "pipe.nodes").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((s.dir / "pipe.nets").c_str(), 0600), 0);
  EXPECT_EXIT(load_under_alarm(s.aux("pipe.nodes")), ::testing::ExitedWithCode(0),
              "pipe.nodes: is a FIFO, not a regular file");
  // An optional file (.nets) that is a FIFO: present, and refused.
  EXPECT_EXIT(load_under_alarm(s.aux("d.nodes", "pipe.nets")), ::testing::ExitedWithCode(0),
              "pipe.nets: is a FIFO, not a regular file");
}

// Limits the child's address space to what it uses now plus `extra_mb`, so that larger
// allocations fail with std::bad_alloc.
void limit_address_space(long extra_mb) {
  long pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const rlim_t now = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
  rlimit limit{};
  getrlimit(RLIMIT_AS, &limit);
  limit.rlim_cur = now + (static_cast<rlim_t>(extra_mb) << 20);
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_cur > limit.rlim_max) limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_AS, &limit);
}

void load_with_little_memory(const std::string& aux, long extra_mb) {
  limit_address_space(extra_mb);
  load_under_alarm(aux);
}

// A sparse file: `size` bytes that take no disk space, starting with `head`.
void write_sparse(const fs::path& path, const std::string& head, std::uintmax_t size) {
  std::ofstream(path, std::ios::binary) << head;
  fs::resize_file(path, size);
}

TEST(BookshelfFilesDeathTest, OutOfMemoryForTheFileNamesItsSize) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "address-space limits do not mix with AddressSanitizer";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Scratch s("oom_read");
  write_sparse(s.dir / "big.nodes", "UCLA nodes 1.0\n", std::uintmax_t(1) << 30);  // 1 GiB
  EXPECT_EXIT(load_with_little_memory(s.aux("big.nodes"), 256), ::testing::ExitedWithCode(0),
              "big.nodes: out of memory allocating 1073741824 bytes to read the file");
}

TEST(BookshelfFilesDeathTest, OutOfMemoryForAHeaderCountNamesTheCount) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "address-space limits do not mix with AddressSanitizer";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Scratch s("oom_reserve");
  // 64 MB could hold 10 million shortest node lines, so the count passes the plausibility cap;
  // room for them (names, sizes, kinds, index: ~1 GB) does not fit in 256 MB.
  write_sparse(s.dir / "many.nodes", "UCLA nodes 1.0\nNumNodes : 10000000\n", std::uintmax_t(64) << 20);
  EXPECT_EXIT(load_with_little_memory(s.aux("many.nodes"), 64 + 256), ::testing::ExitedWithCode(0),
              "many.nodes:2: out of memory reserving room for 10000000 nodes");
}

}  // namespace
