// The Bookshelf loader on the hand-written tiny design (every format variant it exercises), its
// CRLF and CR copies, designs without nets, and the shared real designs (counts from headers).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bookshelf/design_compare.hpp"
#include "efield/bookshelf.hpp"
#include "efield/error.hpp"

namespace {

using efield::Design;
using efield::NodeKind;
using efield::Orientation;
using efield::PinDirection;

const std::string kCorpus = EFIELD_TEST_DATA_DIR "/bookshelf";

std::string corpus_aux(const std::string& name) { return kCorpus + "/" + name + "/" + name + ".aux"; }

TEST(BookshelfLoader, TinyDesignNodesAndPositions) {
  const Design d = efield::load_bookshelf(kCorpus + "/valid/tiny.aux");
  d.check_consistent();
  EXPECT_EQ(d.name, "tiny");
  ASSERT_EQ(d.num_nodes(), 8);
  EXPECT_EQ(d.node_names[4], "a4");
  EXPECT_EQ(d.width[4], 2.5);
  EXPECT_EQ(d.height[3], 20);
  // Kinds: .nodes terminal / terminal_NI and .pl /FIXED on a non-terminal.
  const NodeKind kinds[] = {NodeKind::Movable, NodeKind::Movable, NodeKind::Movable, NodeKind::Movable,
                            NodeKind::Fixed,   NodeKind::Fixed,   NodeKind::Fixed,   NodeKind::FixedNI};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(d.kind[i], kinds[i]) << d.node_names[i];
  EXPECT_EQ(d.count(NodeKind::Movable), 4);
  EXPECT_EQ(d.num_terminals(), 4);
  // Positions, with and without orientation.
  EXPECT_EQ(d.x[1], 20.5);
  EXPECT_EQ(d.y[1], 10);
  EXPECT_EQ(d.orientation[1], Orientation::FS);
  EXPECT_EQ(d.orientation[2], Orientation::N);  // none given
  EXPECT_EQ(d.y[5], -5);
  EXPECT_EQ(d.orientation[7], Orientation::E);
  EXPECT_EQ(d.footprint_width(7), 1);
  EXPECT_EQ(d.movable_area(), 4 * 10 + 6 * 10 + 8 * 10 + 12 * 20);
}

TEST(BookshelfLoader, TinyDesignNets) {
  const Design d = efield::load_bookshelf(kCorpus + "/valid/tiny.aux");
  ASSERT_TRUE(d.has_nets);
  ASSERT_EQ(d.num_nets(), 4);
  ASSERT_EQ(d.num_pins(), 10);
  EXPECT_EQ(d.net_names[0], "n0");
  EXPECT_EQ(d.net_names[1], "");  // unnamed in the file
  EXPECT_EQ(d.net_pin_start, (std::vector<int>{0, 3, 5, 8, 10}));
  EXPECT_EQ(d.pins[0].node, 0);
  EXPECT_EQ(d.pins[0].direction, PinDirection::Output);
  EXPECT_EQ(d.pins[0].offset_x, 1);
  EXPECT_EQ(d.pins[0].offset_y, -2.5);
  EXPECT_EQ(d.pins[3].direction, PinDirection::Bidirectional);
  EXPECT_EQ(d.pins[3].offset_x, 0);  // no offsets given
  EXPECT_EQ(d.pins[5].offset_x, 0.25);
  EXPECT_EQ(d.pins[8].node, 6);
  EXPECT_EQ(d.pins[8].offset_x, 10);  // 1e1
  EXPECT_EQ(d.pins[8].offset_y, -1);  // -1E0
  for (double w : d.net_weight) EXPECT_EQ(w, 1.0);  // the .wts file is empty
}

TEST(BookshelfLoader, TinyDesignRowsAndRegion) {
  const Design d = efield::load_bookshelf(kCorpus + "/valid/tiny.aux");
  ASSERT_EQ(d.rows.size(), 3u);
  EXPECT_EQ(d.rows[0].site_orient, "N");
  EXPECT_EQ(d.rows[1].site_orient, "1");
  EXPECT_EQ(d.rows[1].num_sites, 100);  // NumSites on its own line
  EXPECT_EQ(d.rows[2].site_spacing, 2);  // defaults to the Sitewidth
  EXPECT_EQ(d.rows[2].x_min, -10);
  EXPECT_EQ(d.rows[2].x_max, 100);
  const efield::Region r = d.region();
  EXPECT_EQ(r.xl, -10);
  EXPECT_EQ(r.xh, 100);
  EXPECT_EQ(r.yl, 0);
  EXPECT_EQ(r.yh, 30);
}

TEST(BookshelfLoader, PlacementInputsSplitTheNodes) {
  const Design d = efield::load_bookshelf(kCorpus + "/valid/tiny.aux");
  const efield::PlacementInputs p = efield::placement_inputs(d);
  EXPECT_EQ(p.movable_nodes, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(p.movable.widths, (std::vector<double>{4, 6, 8, 12}));
  EXPECT_EQ(p.movable.heights, (std::vector<double>{10, 10, 10, 20}));
  EXPECT_EQ(p.movable_x[1], 20.5);
  EXPECT_EQ(p.fixed_nodes, (std::vector<int>{4, 5, 6}));  // a4 is fixed by /FIXED
  EXPECT_EQ(p.fixed.x, (std::vector<double>{50, 60, 0}));
  EXPECT_EQ(p.fixed.y, (std::vector<double>{10, -5, 60}));
  EXPECT_EQ(p.fixed.widths, (std::vector<double>{2.5, 30, 20}));
  EXPECT_EQ(p.io_nodes, (std::vector<int>{7}));  // terminal_NI: no density
  EXPECT_EQ(p.row_height, 10);
  EXPECT_EQ(p.region.xl, -10);
  EXPECT_EQ(p.region.yh, 30);
}

TEST(BookshelfLoader, CrlfAndCrLineEndingsLoadTheSame) {
  const Design lf = efield::load_bookshelf(kCorpus + "/valid/tiny.aux");
  for (const char* variant : {"crlf", "cr_only"}) {
    SCOPED_TRACE(variant);
    Design other = efield::load_bookshelf(corpus_aux(variant));
    other.name = lf.name;
    EXPECT_TRUE(efield::test::designs_equal(lf, other));
  }
}

TEST(BookshelfLoader, MissingNetsOnlyWithTheOption) {
  for (const char* variant : {"no_nets", "nets_absent"}) {
    SCOPED_TRACE(variant);
    EXPECT_THROW(efield::load_bookshelf(corpus_aux(variant)), efield::Error);
    efield::BookshelfLoadOptions options;
    options.allow_missing_nets = true;
    const Design d = efield::load_bookshelf(corpus_aux(variant), options);
    EXPECT_FALSE(d.has_nets);
    EXPECT_EQ(d.num_nets(), 0);
    EXPECT_EQ(d.num_nodes(), 8);
    EXPECT_EQ(d.rows.size(), 3u);
  }
  try {
    efield::load_bookshelf(corpus_aux("nets_absent"));
    FAIL() << "expected an error";
  } catch (const efield::Error& e) {
    EXPECT_NE(std::string(e.what()).find("absent.nets: cannot open file"), std::string::npos) << e.what();
  }
}

// The shared real designs: present on the team's machines, absent in CI (then skipped).
std::string shared_aux(const std::string& design) {
  const std::string path = EFIELD_SHARED_DATA_DIR "/bookshelf/" + design + "/" + design + ".aux";
  return std::filesystem::exists(path) ? path : std::string();
}

TEST(BookshelfLoader, Ibm05CountsMatchHeaders) {
  const std::string aux = shared_aux("ibm05");
  if (aux.empty()) GTEST_SKIP() << "shared design ibm05 not found under " EFIELD_SHARED_DATA_DIR;
  efield::BookshelfLoadStats stats;
  const Design d = efield::load_bookshelf(aux, {}, &stats);
  d.check_consistent();
  EXPECT_EQ(d.num_nodes(), 29347);
  EXPECT_EQ(d.num_terminals(), 1201);
  EXPECT_EQ(d.num_nets(), 28446);
  EXPECT_EQ(d.num_pins(), 126308);
  EXPECT_EQ(d.net_names[0], "net0");
  EXPECT_FALSE(d.rows.empty());
  EXPECT_EQ(d.rows[0].site_orient, "N");
  // ibm05's .wts weights nodes (the pads weigh 0).
  EXPECT_EQ(d.node_weight[0], 0.0);
  RecordProperty("load_ms", std::to_string(stats.total_ms));
  std::printf("ibm05: %.1f ms (%zu bytes)\n", stats.total_ms, stats.bytes);
}

TEST(BookshelfLoader, Ibm01Loads) {
  const std::string aux = shared_aux("ibm01");
  if (aux.empty()) GTEST_SKIP() << "shared design ibm01 not found under " EFIELD_SHARED_DATA_DIR;
  const Design d = efield::load_bookshelf(aux);
  EXPECT_EQ(d.num_nodes(), 12028);
  EXPECT_EQ(d.num_nets(), 11507);
  EXPECT_EQ(d.num_pins(), 44266);
  EXPECT_EQ(d.rows.size(), 132u);
  EXPECT_LT(d.region().xl, 0);  // negative coordinates
}

TEST(BookshelfLoader, Adaptec1WithoutNetsCountsMatchHeaders) {
  const std::string aux = shared_aux("adaptec1");
  if (aux.empty()) GTEST_SKIP() << "shared design adaptec1 not found under " EFIELD_SHARED_DATA_DIR;
  EXPECT_THROW(efield::load_bookshelf(aux), efield::Error);  // its .nets file is absent
  efield::BookshelfLoadOptions options;
  options.allow_missing_nets = true;
  efield::BookshelfLoadStats stats;
  const Design d = efield::load_bookshelf(aux, options, &stats);
  d.check_consistent();
  EXPECT_EQ(d.num_nodes(), 211447);
  EXPECT_EQ(d.num_terminals(), 543);
  EXPECT_EQ(d.rows.size(), 890u);
  EXPECT_EQ(d.count(NodeKind::Movable), 211447 - 543);
  const efield::Region r = d.region();
  EXPECT_EQ(r.xl, 459);
  EXPECT_EQ(r.yl, 459);
  EXPECT_EQ(r.xh, 459 + 10692);
  EXPECT_EQ(r.yh, 11127 + 12);
  RecordProperty("load_ms", std::to_string(stats.total_ms));
  std::printf("adaptec1: %.1f ms (%zu bytes)\n", stats.total_ms, stats.bytes);
}

}  // namespace
