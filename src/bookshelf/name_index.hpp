#pragma once
// Node name -> node index: an open-addressing hash table (linear probing, power-of-two size,
// at most half full) over string views. Flat arrays instead of std::unordered_map's one
// allocation per name: loading adaptec1's 211k names is dominated by this table's cache misses.
#include <cstdint>
#include <string_view>
#include <vector>

namespace efield::bookshelf {

class NameIndex {
 public:
  // Room for `n` names without growing.
  void reserve(std::size_t n) {
    if (2 * n > slots_.size()) rehash(2 * n);
    keys_.reserve(n);
  }
  // Adds name -> id (ids are given in order 0, 1, 2, ...); false when the name is present.
  // The characters must outlive the index.
  bool emplace(std::string_view name, int id) {
    if (2 * (keys_.size() + 1) > slots_.size()) rehash(2 * (keys_.size() + 1));
    const std::uint64_t h = hash(name);
    for (std::size_t s = h & mask_;; s = (s + 1) & mask_) {
      const int at = slots_[s];
      if (at < 0) {
        slots_[s] = static_cast<int>(keys_.size());
        keys_.push_back({name, h, id});
        return true;
      }
      if (keys_[at].hash == h && keys_[at].name == name) return false;
    }
  }
  // The id of `name`, or -1.
  int find(std::string_view name) const {
    if (keys_.empty()) return -1;
    const std::uint64_t h = hash(name);
    for (std::size_t s = h & mask_;; s = (s + 1) & mask_) {
      const int at = slots_[s];
      if (at < 0) return -1;
      if (keys_[at].hash == h && keys_[at].name == name) return keys_[at].id;
    }
  }
  std::size_t size() const noexcept { return keys_.size(); }

 private:
  struct Key {
    std::string_view name;
    std::uint64_t hash;
    int id;
  };
  // FNV-1a with a final mix (names like o123456 differ only in their last bytes).
  static std::uint64_t hash(std::string_view s) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
  }
  void rehash(std::size_t want) {
    std::size_t size = 16;
    while (size < want) size *= 2;
    slots_.assign(size, -1);
    mask_ = size - 1;
    for (std::size_t k = 0; k < keys_.size(); ++k) {
      std::size_t s = keys_[k].hash & mask_;
      while (slots_[s] >= 0) s = (s + 1) & mask_;
      slots_[s] = static_cast<int>(k);
    }
  }

  std::vector<int> slots_;  // index into keys_, -1 = empty
  std::vector<Key> keys_;
  std::size_t mask_ = 0;
};

}  // namespace efield::bookshelf
