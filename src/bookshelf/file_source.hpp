#pragma once
// Where the Bookshelf loader's bytes come from: files on disk (load_bookshelf), or texts held in
// memory (the fuzz target, fuzz/bookshelf_fuzzer.cpp). The loader itself (load_bookshelf.cpp)
// is the same for both.
#include <string>

#include "efield/bookshelf.hpp"

namespace efield::bookshelf {

class FileSource {
 public:
  virtual ~FileSource() = default;
  // Whether `path` names something; absent optional files (.nets, .wts) are skipped.
  virtual bool exists(const std::string& path) const = 0;
  // The whole file. Throws efield::Error naming `path` (and `named_by`, the .aux line that asked
  // for it, when given) when it cannot be read.
  virtual std::string read(const std::string& path, const std::string& named_by) const = 0;
};

// Regular files only: a directory, a device (/dev/zero) or a FIFO is refused before it is opened
// (a FIFO is never opened, so a FIFO without a writer cannot hang the loader), and at most the
// size the file had when it was opened is read. Running out of memory for the bytes is an
// efield::Error naming the file and the size.
class DiskFiles final : public FileSource {
 public:
  bool exists(const std::string& path) const override;
  std::string read(const std::string& path, const std::string& named_by) const override;
};

// load_bookshelf over any source. Running out of memory while parsing a file is an
// efield::Error naming the file and how far the design had come.
Design load_design(const std::string& aux_path, const FileSource& files, const BookshelfLoadOptions& options,
                   BookshelfLoadStats* stats);

}  // namespace efield::bookshelf
