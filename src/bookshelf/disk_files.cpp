// DiskFiles (file_source.hpp): the loader's files from disk, regular files only, read up to the
// size they had when opened.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "bookshelf/file_source.hpp"
#include "efield/error.hpp"

namespace efield::bookshelf {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

bool DiskFiles::exists(const std::string& path) const {
  if (path.find('\0') != std::string::npos) return true;  // read() refuses it, naming the problem
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string DiskFiles::read(const std::string& path, const std::string& named_by) const {
  const std::string context = named_by.empty() ? std::string() : " (named in " + named_by + ")";
  const auto refuse = [&](const char* kind) {
    throw Error(path + ": is " + std::string(kind) + ", not a regular file" + context);
  };
  // The C calls below would stop at an embedded NUL and open another file than the one named.
  if (path.find('\0') != std::string::npos)
    throw Error("'" + path.substr(0, path.find('\0')) + "\\0...': the path holds a NUL byte" + context);
  // stat first: opening a FIFO without a writer would block, and a device may never end.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw Error(path + ": cannot open file (" + std::strerror(errno) + ")" + context);
  if (!S_ISREG(st.st_mode)) refuse(kind_of(st.st_mode));
  // O_NONBLOCK: should the path have become a FIFO since the stat, the open returns at once and
  // the fstat below refuses it.
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) throw Error(path + ": cannot open file (" + std::strerror(errno) + ")" + context);
  if (::fstat(fd.get(), &st) != 0) throw Error(path + ": cannot stat file (" + std::strerror(errno) + ")" + context);
  if (!S_ISREG(st.st_mode)) refuse(kind_of(st.st_mode));
  const auto size = static_cast<std::size_t>(st.st_size);
  std::string bytes;
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    throw Error(path + ": out of memory allocating " + std::to_string(size) + " bytes to read the file" + context);
  } catch (const std::length_error&) {
    throw Error(path + ": the file's " + std::to_string(size) + " bytes are more than a string holds" + context);
  }
  // Up to the size seen at open: a file that grows meanwhile is read as it was.
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd.get(), &bytes[got], size - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(path + ": read error (" + std::strerror(errno) + ")" + context);
    }
    if (n == 0) break;  // the file shrank
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

}  // namespace efield::bookshelf
