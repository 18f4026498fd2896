// The .nets file: "NumNets : n", "NumPins : p", then per net "NetDegree : d [name]" followed by d
// pin lines "<node> [I|O|B] [: <dx> <dy>]" (offsets from the node's centre; none means 0 0).
#include <algorithm>

#include "bookshelf/parsers.hpp"

namespace efield::bookshelf {
namespace {

bool parse_direction(std::string_view t, PinDirection* d) {
  if (iequals(t, "I")) *d = PinDirection::Input;
  else if (iequals(t, "O")) *d = PinDirection::Output;
  else if (iequals(t, "B")) *d = PinDirection::Bidirectional;
  else return false;
  return true;
}

}  // namespace

void parse_nets(LineReader& reader, const NameIndex& index, Design& design) {
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
      design.net_pin_start.reserve(n + 1);
      design.net_names.reserve(n);
      continue;
    }
    if (reader.key_count("NumPins", &value)) {
      if (declared_pins >= 0) reader.fail("a second NumPins line");
      declared_pins = value, pins_line = reader.line();
      design.pins.reserve(reader.plausible(value, 2));  // "a\n"
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
}

}  // namespace efield::bookshelf
