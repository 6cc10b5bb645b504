// SchedulingGates plugin tests.
#include "scheduler/plugins/schedulinggates/scheduling_gates.h"

#include <gtest/gtest.h>

#include "scheduler/testing/builders.h"

namespace allot::scheduler {
namespace {

using testing::PodBuilder;

TEST(SchedulingGates, PreEnqueue) {
  SchedulingGates plugin;
  EXPECT_TRUE(plugin.PreEnqueue(*PodBuilder("p").Build()).IsSuccess());
  Status st = plugin.PreEnqueue(*PodBuilder("p").Gate("a").Gate("b").Build());
  EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(), "waiting for scheduling gates: [a b]");
}

}  // namespace
}  // namespace allot::scheduler
