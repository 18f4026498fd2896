// write_bookshelf: the six files of a design, numbers in their shortest exact decimal form
// (std::to_chars), so that load_bookshelf gives back the same doubles.
#include <charconv>
#include <cstdio>
#include <memory>

#include "efield/bookshelf.hpp"
#include "efield/error.hpp"

namespace efield {
namespace {

class TextOut {
 public:
  TextOut& operator<<(const std::string& s) { text_ += s; return *this; }
  TextOut& operator<<(const char* s) { text_ += s; return *this; }
  TextOut& operator<<(char c) { text_ += c; return *this; }
  TextOut& operator<<(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    text_.append(buf, r.ptr);
    return *this;
  }
  TextOut& operator<<(long long v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    text_.append(buf, r.ptr);
    return *this;
  }
  TextOut& operator<<(int v) { return *this << static_cast<long long>(v); }
  TextOut& operator<<(std::size_t v) { return *this << static_cast<long long>(v); }

  void save(const std::string& path) const {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!f) throw Error(path + ": cannot create file");
    if (std::fwrite(text_.data(), 1, text_.size(), f.get()) != text_.size()) throw Error(path + ": write error");
    if (std::fflush(f.get()) != 0) throw Error(path + ": write error");
  }
  void reserve(std::size_t n) { text_.reserve(n); }

 private:
  std::string text_;
};

std::string node_name(const Design& d, int i) {
  return i < static_cast<int>(d.node_names.size()) && !d.node_names[i].empty() ? d.node_names[i]
                                                                                : "o" + std::to_string(i);
}

void header(TextOut& out, const char* type, const Design& d) {
  out << "UCLA " << type << " 1.0\n# written by efield for design '" << d.name << "'\n\n";
}

}  // namespace

void write_bookshelf(const Design& d, const std::string& directory, const std::string& base) {
  d.check_consistent();
  const int n = d.num_nodes();
  const std::string stem = (directory.empty() ? std::string() : directory + "/") + base;

  TextOut nodes;
  nodes.reserve(static_cast<std::size_t>(n) * 24 + 128);
  header(nodes, "nodes", d);
  nodes << "NumNodes : " << n << "\nNumTerminals : " << d.num_terminals() << "\n";
  for (int i = 0; i < n; ++i) {
    nodes << '\t' << node_name(d, i) << '\t' << d.width[i] << '\t' << d.height[i];
    if (d.kind[i] == NodeKind::Fixed) nodes << "\tterminal";
    if (d.kind[i] == NodeKind::FixedNI) nodes << "\tterminal_NI";
    nodes << '\n';
  }
  nodes.save(stem + ".nodes");

  if (d.has_nets) {
    TextOut nets;
    nets.reserve(d.pins.size() * 28 + d.net_names.size() * 24 + 128);
    header(nets, "nets", d);
    nets << "NumNets : " << d.num_nets() << "\nNumPins : " << d.num_pins() << "\n";
    for (int k = 0; k < d.num_nets(); ++k) {
      const int begin = d.net_pin_start[k], end = d.net_pin_start[k + 1];
      nets << "NetDegree : " << (end - begin);
      if (!d.net_names[k].empty()) nets << ' ' << d.net_names[k];
      nets << '\n';
      for (int p = begin; p < end; ++p) {
        const Pin& pin = d.pins[p];
        nets << '\t' << node_name(d, pin.node) << ' ' << to_string(pin.direction) << " : " << pin.offset_x << ' '
             << pin.offset_y << '\n';
      }
    }
    nets.save(stem + ".nets");
  }

  TextOut wts;
  header(wts, "wts", d);
  if (d.has_nets)
    for (int k = 0; k < d.num_nets(); ++k)
      if (d.net_weight[k] != 1.0 && !d.net_names[k].empty()) wts << '\t' << d.net_names[k] << '\t' << d.net_weight[k] << '\n';
  for (int i = 0; i < n; ++i)
    if (d.node_weight[i] != 1.0) wts << '\t' << node_name(d, i) << '\t' << d.node_weight[i] << '\n';
  wts.save(stem + ".wts");

  TextOut pl;
  pl.reserve(static_cast<std::size_t>(n) * 28 + 128);
  header(pl, "pl", d);
  for (int i = 0; i < n; ++i) {
    pl << node_name(d, i) << '\t' << d.x[i] << '\t' << d.y[i] << "\t: " << to_string(d.orientation[i]);
    if (d.kind[i] == NodeKind::Fixed) pl << " /FIXED";
    if (d.kind[i] == NodeKind::FixedNI) pl << " /FIXED_NI";
    pl << '\n';
  }
  pl.save(stem + ".pl");

  TextOut scl;
  header(scl, "scl", d);
  scl << "NumRows : " << d.rows.size() << "\n\n";
  for (const Row& r : d.rows) {
    scl << "CoreRow Horizontal\n  Coordinate    : " << r.y << "\n  Height        : " << r.height
        << "\n  Sitewidth     : " << r.site_width << "\n  Sitespacing   : " << r.site_spacing
        << "\n  Siteorient    : " << r.site_orient << "\n  Sitesymmetry  : " << r.site_symmetry
        << "\n  SubrowOrigin  : " << r.x_min << "\tNumSites  : " << r.num_sites << "\nEnd\n";
  }
  scl.save(stem + ".scl");

  TextOut aux;
  aux << "RowBasedPlacement : " << base << ".nodes ";
  if (d.has_nets) aux << base << ".nets ";
  aux << base << ".wts " << base << ".pl " << base << ".scl\n";
  aux.save(stem + ".aux");
}

}  // namespace efield
