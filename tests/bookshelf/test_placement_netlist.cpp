// The placer's netlist view (CSR arrays, offsets turned with their node's orientation) and the
// loader's handling of .nets offsets measured from the lower-left corner.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "efield/bookshelf.hpp"
#include "efield/error.hpp"
#include "efield/placement_netlist.hpp"

namespace {

using efield::Design;
using efield::NodeKind;
using efield::Orientation;

const std::string kCorpus = EFIELD_TEST_DATA_DIR "/bookshelf";

// One 4 x 10 node per orientation (N, S, E, W, FN, FS, FE, FW), plus an unrotated 6 x 2 node.
// Net 0 joins a pin at offset (1, 3) on each of the eight; net 1 (weight 2.5) joins the last
// node's two pins and the first node's second pin.
Design eight_orientations() {
  Design d;
  d.name = "orientations";
  const Orientation all[] = {Orientation::N,  Orientation::S,  Orientation::E,  Orientation::W,
                             Orientation::FN, Orientation::FS, Orientation::FE, Orientation::FW};
  for (int i = 0; i < 9; ++i) {
    d.node_names.push_back("c" + std::to_string(i));
    d.width.push_back(i < 8 ? 4 : 6);
    d.height.push_back(i < 8 ? 10 : 2);
    d.x.push_back(10.0 * i);
    d.y.push_back(0);
    d.kind.push_back(NodeKind::Movable);
    d.orientation.push_back(i < 8 ? all[i] : Orientation::N);
    d.node_weight.push_back(1);
  }
  d.has_nets = true;
  d.net_pin_start = {0};
  for (int i = 0; i < 8; ++i) d.pins.push_back({i, efield::PinDirection::Input, 1, 3});
  d.net_pin_start.push_back(d.num_pins());
  d.pins.push_back({8, efield::PinDirection::Output, -3, 1});
  d.pins.push_back({0, efield::PinDirection::Input, -2, -5});
  d.pins.push_back({8, efield::PinDirection::Input, 0.5, 0});
  d.net_pin_start.push_back(d.num_pins());
  d.net_names = {"n0", "n1"};
  d.net_weight = {1.0, 2.5};
  return d;
}

TEST(PlacementNetlist, CsrArraysAndOrientedOffsets) {
  const Design d = eight_orientations();
  const efield::PlacementNetlist nl = efield::placement_netlist(d);
  EXPECT_EQ(nl.num_nets(), 2);
  EXPECT_EQ(nl.num_pins(), 11);
  EXPECT_EQ(nl.num_nodes(), 9);
  EXPECT_EQ(nl.net_pin_start, (std::vector<int>{0, 8, 11}));
  EXPECT_EQ(nl.net_weight, (std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(nl.pin_node, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 8}));
  // (1, 3) on a node in N, S, E, W, FN, FS, FE, FW.
  const double ex[] = {1, -1, 3, -3, -1, 1, 3, -3};
  const double ey[] = {3, -3, -1, 1, 3, -3, 1, -1};
  for (int p = 0; p < 8; ++p) {
    EXPECT_EQ(nl.pin_offset_x[p], ex[p]) << efield::to_string(d.orientation[p]);
    EXPECT_EQ(nl.pin_offset_y[p], ey[p]) << efield::to_string(d.orientation[p]);
  }
  EXPECT_EQ(nl.pin_offset_x[9], -2);  // node 0 is in N
  EXPECT_EQ(nl.pin_offset_y[9], -5);
  EXPECT_EQ(nl.pin_offset_x[8], -3);
  // Pins grouped by node, in pin order: node 0 has pins 0 and 9, node 8 has 8 and 10.
  EXPECT_EQ(nl.node_pin_start, (std::vector<int>{0, 2, 3, 4, 5, 6, 7, 8, 9, 11}));
  EXPECT_EQ(nl.node_pins, (std::vector<int>{0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 10}));
}

// Every corner of the unturned node, turned, lands on a corner of the footprint as placed
// (Design::footprint_width/height), and the eight orientations give eight different images.
TEST(PlacementNetlist, OffsetsStayOnTheFootprint) {
  Design d = eight_orientations();
  for (Orientation o : {Orientation::N, Orientation::S, Orientation::E, Orientation::W, Orientation::FN,
                        Orientation::FS, Orientation::FE, Orientation::FW}) {
    d.orientation[0] = o;
    d.pins[8 + 1] = {0, efield::PinDirection::Input, 2, 5};  // the (w/2, h/2) corner
    const efield::PlacementNetlist nl = efield::placement_netlist(d);
    EXPECT_EQ(std::abs(nl.pin_offset_x[9]), d.footprint_width(0) / 2) << efield::to_string(o);
    EXPECT_EQ(std::abs(nl.pin_offset_y[9]), d.footprint_height(0) / 2) << efield::to_string(o);
  }
  const efield::PlacementNetlist nl = efield::placement_netlist(eight_orientations());
  for (int a = 0; a < 8; ++a)
    for (int b = a + 1; b < 8; ++b)
      EXPECT_FALSE(nl.pin_offset_x[a] == nl.pin_offset_x[b] && nl.pin_offset_y[a] == nl.pin_offset_y[b])
          << a << " and " << b;
}

TEST(PlacementNetlist, WithoutNets) {
  Design d = eight_orientations();
  d.has_nets = false;
  d.net_pin_start.clear(), d.pins.clear(), d.net_names.clear(), d.net_weight.clear();
  const efield::PlacementNetlist nl = efield::placement_netlist(d);
  EXPECT_EQ(nl.num_nets(), 0);
  EXPECT_EQ(nl.num_pins(), 0);
  EXPECT_EQ(nl.node_pin_start, std::vector<int>(10, 0));
}

TEST(PlacementNetlist, EnumValuesOutsideTheirEnumsAreRefused) {
  // A cast from an integer: the netlist's turn table and to_string have 8 rows.
  const auto refused = [](const Design& d, const char* problem) {
    for (const auto& call : {std::function<void()>([&] { d.check_consistent(); }),
                             std::function<void()>([&] { (void)efield::placement_netlist(d); }),
                             std::function<void()>([&] { (void)efield::placement_inputs(d); })}) {
      try {
        call();
        ADD_FAILURE() << "accepted " << problem;
      } catch (const efield::Error& e) {
        EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
      }
    }
  };
  Design d = eight_orientations();
  d.orientation[3] = static_cast<efield::Orientation>(8);
  refused(d, "node 3 has orientation 8, not an Orientation");
  d = eight_orientations();
  d.kind[2] = static_cast<efield::NodeKind>(5);
  refused(d, "node 2 has kind 5, not a NodeKind");
  d = eight_orientations();
  d.pins[0].direction = static_cast<efield::PinDirection>(9);
  refused(d, "pin 0 has direction 9, not a PinDirection");
  d = eight_orientations();
  d.pins[1].offset_x = std::nan("");
  refused(d, "pin 1 has a non-finite offset");
}

TEST(PlacementNetlist, TinyDesignMatchesItsPins) {
  const Design d = efield::load_bookshelf(kCorpus + "/valid/tiny.aux");
  EXPECT_FALSE(d.pin_offsets_were_lower_left);
  const efield::PlacementNetlist nl = efield::placement_netlist(d);
  EXPECT_EQ(nl.net_pin_start, d.net_pin_start);
  ASSERT_EQ(nl.num_pins(), d.num_pins());
  for (int p = 0; p < d.num_pins(); ++p) EXPECT_EQ(nl.pin_node[p], d.pins[p].node);
  EXPECT_EQ(nl.pin_offset_x[0], 1);  // a0 in N
  EXPECT_EQ(nl.pin_offset_y[0], -2.5);
  int counted = 0;
  for (int i = 0; i < nl.num_nodes(); ++i) counted += nl.node_pin_start[i + 1] - nl.node_pin_start[i];
  EXPECT_EQ(counted, d.num_pins());
  EXPECT_EQ(nl.node_pin_start[1] - nl.node_pin_start[0], 2);  // a0 is on nets n0 and n2
}

TEST(PinOffsetConvention, LowerLeftOffsetsAreMovedToTheCentre) {
  efield::BookshelfLoadStats stats;
  const Design d = efield::load_bookshelf(kCorpus + "/lower_left_offsets/lower_left_offsets.aux", {}, &stats);
  EXPECT_EQ(stats.pins_off_centre, 6);
  EXPECT_TRUE(d.pin_offsets_were_lower_left);
  // As written minus half the node's .nodes size.
  const double written[10][2] = {{3, 8}, {5, 9},     {25, 30}, {4, 5},  {12, 20},
                                 {0, 0}, {0.5, 0.5}, {1, 2},   {20, 0}, {6, 10}};
  ASSERT_EQ(d.num_pins(), 10);
  for (int p = 0; p < 10; ++p) {
    const int node = d.pins[p].node;
    EXPECT_EQ(d.pins[p].offset_x, written[p][0] - d.width[node] / 2) << "pin " << p;
    EXPECT_EQ(d.pins[p].offset_y, written[p][1] - d.height[node] / 2) << "pin " << p;
  }
  EXPECT_EQ(d.pins[0].offset_x, 1);  // a0 is 4 x 10
  EXPECT_EQ(d.pins[0].offset_y, 3);
}

TEST(PinOffsetConvention, OffsetsFittingNeitherConventionStayAsWritten) {
  efield::BookshelfLoadStats stats;
  const Design d = efield::load_bookshelf(kCorpus + "/off_centre_mixed/off_centre_mixed.aux", {}, &stats);
  EXPECT_EQ(stats.pins_off_centre, 7);
  EXPECT_FALSE(d.pin_offsets_were_lower_left);
  EXPECT_EQ(d.pins[0].offset_x, 3);
  EXPECT_EQ(d.pins[7].offset_x, -3);
}

TEST(PinOffsetConvention, CentreOffsetsAreLeftAlone) {
  efield::BookshelfLoadStats stats;
  const Design d = efield::load_bookshelf(kCorpus + "/valid/tiny.aux", {}, &stats);
  EXPECT_EQ(stats.pins_off_centre, 0);
  EXPECT_FALSE(d.pin_offsets_were_lower_left);
  EXPECT_EQ(d.pins[8].offset_x, 10);  // m1 is 20 wide: on the edge, still centre-relative
}

std::string shared_aux(const std::string& design) {
  const std::string path = EFIELD_SHARED_DATA_DIR "/bookshelf/" + design + "/" + design + ".aux";
  return std::filesystem::exists(path) ? path : std::string();
}

// ibm01 (ICCAD04) writes offsets from the lower-left corner: 19,504 of its 44,266 pins lie
// outside half their cell, and all fit the corner convention. ibm05 is centre-relative.
TEST(PinOffsetConvention, Ibm01IsLowerLeftIbm05IsCentred) {
  const std::string ibm01 = shared_aux("ibm01"), ibm05 = shared_aux("ibm05");
  if (ibm01.empty() || ibm05.empty())
    GTEST_SKIP() << "shared designs ibm01/ibm05 not found under " EFIELD_SHARED_DATA_DIR;
  efield::BookshelfLoadStats stats;
  const Design d = efield::load_bookshelf(ibm01, {}, &stats);
  EXPECT_EQ(stats.pins_off_centre, 19504);
  EXPECT_TRUE(d.pin_offsets_were_lower_left);
  const efield::PlacementNetlist nl = efield::placement_netlist(d);
  for (int p = 0; p < nl.num_pins(); ++p) {
    const int node = nl.pin_node[p];
    ASSERT_LE(std::abs(nl.pin_offset_x[p]), d.footprint_width(node) / 2) << "pin " << p;
    ASSERT_LE(std::abs(nl.pin_offset_y[p]), d.footprint_height(node) / 2) << "pin " << p;
  }
  const Design d5 = efield::load_bookshelf(ibm05, {}, &stats);
  EXPECT_EQ(stats.pins_off_centre, 0);
  EXPECT_FALSE(d5.pin_offsets_were_lower_left);
}

}  // namespace
