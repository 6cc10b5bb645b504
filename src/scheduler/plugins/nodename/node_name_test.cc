// NodeName plugin tests.
#include "scheduler/plugins/nodename/node_name.h"

#include <gtest/gtest.h>

#include "scheduler/testing/builders.h"
#include "scheduler/testing/filter_cases.h"

namespace allot::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;
using testing::RunFilterCases;

TEST(NodeName, Filter) {
  NodeName plugin;
  RunFilterCases(
      plugin,
      {
          {"no nodeName", PodBuilder("p"), NodeBuilder("n1"), Code::kSuccess, ""},
          {"matching", PodBuilder("p").NodeName("n1"), NodeBuilder("n1"), Code::kSuccess, ""},
          {"other node", PodBuilder("p").NodeName("n2"), NodeBuilder("n1"),
           Code::kUnschedulableAndUnresolvable, "node(s) didn't match the requested node name"},
      });
  CycleState state;
  PreFilterResult r;
  ASSERT_TRUE(plugin.PreFilter(state, *PodBuilder("p").NodeName("n7").Info(), r).IsSuccess());
  EXPECT_EQ(*r.node_names, std::vector<std::string>{"n7"});
}

}  // namespace
}  // namespace allot::scheduler
