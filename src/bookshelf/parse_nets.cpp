// The .nets file: "NumNets : n", "NumPins : p", then per net "NetDegree : d [name]" followed by d
// pin lines "<node> [I|O|B] [: <dx> <dy>]" (offsets from the node's centre; none means 0 0).
// Offsets measured from the lower-left corner instead are detected and moved to the centre (the
// rule is documented at load_bookshelf).
#include <algorithm>
#include <cmath>

#include "bookshelf/parsers.hpp"
#include "common/log.hpp"

namespace efield::bookshelf {
namespace {

bool parse_direction(std::string_view t, PinDirection* d) {
  if (iequals(t, "I")) *d = PinDirection::Input;
  else if (iequals(t, "O")) *d = PinDirection::Output;
  else if (iequals(t, "B")) *d = PinDirection::Bidirectional;
  else return false;
  return true;
}

// Whether |offset| fits in half of `size`, with a relative tolerance for sizes and offsets that
// went through decimal text.
bool within_half(double offset, double size) {
  const double half = 0.5 * size;
  return std::abs(offset) <= half + 1e-6 * std::max(half, 1.0);
}

bool within_lower_left(double offset, double size) {
  const double tol = 1e-6 * std::max(size, 1.0);
  return offset >= -tol && offset <= size + tol;
}

// Counts the pins whose offsets cannot be from their node's centre; when they are more than 1% of
// all pins, warns and (if the lower-left convention fits every pin) moves the offsets to the
// centre. Node sizes are the unrotated .nodes sizes, the frame .nets offsets are written in.
long long normalise_pin_offsets(const std::string& path, Design& design) {
  long long off_centre = 0;
  bool all_lower_left = true;
  for (const Pin& p : design.pins) {
    const double w = design.width[p.node], h = design.height[p.node];
    if (!within_half(p.offset_x, w) || !within_half(p.offset_y, h)) ++off_centre;
    all_lower_left = all_lower_left && within_lower_left(p.offset_x, w) && within_lower_left(p.offset_y, h);
  }
  const long long pins = static_cast<long long>(design.pins.size());
  if (off_centre == 0) return 0;
  if (off_centre * 100 <= pins) {
    detail::log().info("{}: {} of {} pin offsets lie outside half their node's size; left as written", path,
                       off_centre, pins);
    return off_centre;
  }
  if (!all_lower_left) {
    detail::log().warn(
        "{}: {} of {} pin offsets lie outside half their node's size, so they are not from the node's centre "
        "(Bookshelf's convention), nor do all of them fit the lower-left convention; left as written",
        path, off_centre, pins);
    return off_centre;
  }
  detail::log().warn(
      "{}: {} of {} pin offsets lie outside half their node's size, so they are not from the node's centre "
      "(Bookshelf's convention); all fit offsets from the lower-left corner: moved to the centre (offset - size/2)",
      path, off_centre, pins);
  for (Pin& p : design.pins) {
    p.offset_x -= 0.5 * design.width[p.node];
    p.offset_y -= 0.5 * design.height[p.node];
  }
  design.pin_offsets_were_lower_left = true;
  return off_centre;
}

}  // namespace

long long parse_nets(LineReader& reader, const NameIndex& index, Design& design) {
  reader.skip_header("nets");
  long long declared_nets = -1, declared_pins = -1;
  int nets_line = 0, pins_line = 0;
  design.net_pin_start.assign(1, 0);
  while (reader.next()) {
    long long value = 0;
    if (reader.key_count("NumNets", &value)) {
      if (declared_nets >= 0) reader.fail("a second NumNets line");
      declared_nets = value, nets_line = reader.line();
      const std::size_t n = reader.plausible(value, 14);  // "NetDegree : 0\n"
      reader.allocating("nets", n, sizeof(int) + sizeof(std::string), [&] {
        design.net_pin_start.reserve(n + 1);
        design.net_names.reserve(n);
      });
      continue;
    }
    if (reader.key_count("NumPins", &value)) {
      if (declared_pins >= 0) reader.fail("a second NumPins line");
      declared_pins = value, pins_line = reader.line();
      const std::size_t n = reader.plausible(value, 2);  // "a\n"
      reader.allocating("pins", n, sizeof(Pin), [&] { design.pins.reserve(n); });
      continue;
    }
    if (!iequals(reader[0], "NetDegree"))
      reader.fail("expected 'NetDegree : <pins> [name]', got " + quote(reader[0]));
    if (declared_nets < 0) reader.fail("expected 'NumNets : <count>' before the first net");
    reader.expect_colon(1, "NetDegree");
    const long long degree = reader.count(2, "the net degree");
    reader.expect_end(4, "the net name");
    const std::string net_name = reader.size() > 3 ? std::string(reader[3]) : std::string();
    const int net_line = reader.line();
    if (design.num_nets() >= declared_nets)
      reader.fail("more nets than NumNets = " + std::to_string(declared_nets) + " (line " +
                  std::to_string(nets_line) + ") declares");
    for (long long k = 0; k < degree; ++k) {
      const auto missing = [&] {
        return "net " + (net_name.empty() ? std::string("at line ") + std::to_string(net_line) : quote(net_name)) +
               " declares " + std::to_string(degree) + " pins but has only " + std::to_string(k);
      };
      if (!reader.next()) reader.fail_at_end(missing() + "; is the file truncated?");
      if (iequals(reader[0], "NetDegree")) reader.fail(missing());
      Pin pin;
      pin.node = index.find(reader[0]);
      if (pin.node < 0) reader.fail("unknown node " + quote(reader[0]) + " (not in the .nodes file)");
      std::size_t i = 1;
      if (i < reader.size() && reader[i] != ":") {
        if (!parse_direction(reader[i], &pin.direction))
          reader.fail("expected the pin direction I, O or B, got " + quote(reader[i]));
        ++i;
      }
      if (i < reader.size()) {
        reader.expect_colon(i, "the pin's node and direction");
        pin.offset_x = reader.number(i + 1, "the pin's x offset");
        pin.offset_y = reader.number(i + 2, "the pin's y offset");
        reader.expect_end(i + 3, "the pin offsets");
      }
      design.pins.push_back(pin);
    }
    design.net_names.push_back(net_name);
    design.net_pin_start.push_back(static_cast<int>(design.pins.size()));
  }
  if (declared_nets < 0) reader.fail_at_end("no 'NumNets : <count>' line");
  if (design.num_nets() != declared_nets)
    reader.fail_count(nets_line, "NumNets", declared_nets, design.num_nets(), "nets");
  if (declared_pins >= 0 && static_cast<long long>(design.pins.size()) != declared_pins)
    reader.fail_count(pins_line, "NumPins", declared_pins, static_cast<long long>(design.pins.size()), "pins");
  design.net_weight.assign(design.net_names.size(), 1.0);
  design.has_nets = true;
  return normalise_pin_offsets(reader.path(), design);
}

}  // namespace efield::bookshelf
