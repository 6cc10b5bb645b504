// NodeUnschedulable plugin tests.
#include "scheduler/plugins/nodeunschedulable/node_unschedulable.h"

#include <gtest/gtest.h>

#include "scheduler/testing/builders.h"
#include "scheduler/testing/filter_cases.h"

namespace allot::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;
using testing::RunFilterCases;

TEST(NodeUnschedulable, Filter) {
  NodeUnschedulable plugin;
  RunFilterCases(plugin,
                 {
                     {"schedulable", PodBuilder("p"), NodeBuilder("n"), Code::kSuccess, ""},
                     {"cordoned", PodBuilder("p"), NodeBuilder("n").Unschedulable(),
                      Code::kUnschedulableAndUnresolvable, "node(s) were unschedulable"},
                     {"tolerates the unschedulable taint",
                      PodBuilder("p").Toleration("node.kubernetes.io/unschedulable", "Exists", "",
                                                 "NoSchedule"),
                      NodeBuilder("n").Unschedulable(), Code::kSuccess, ""},
                     {"tolerates everything", PodBuilder("p").Toleration("", "Exists", "", ""),
                      NodeBuilder("n").Unschedulable(), Code::kSuccess, ""},
                 });
}

}  // namespace
}  // namespace allot::scheduler
