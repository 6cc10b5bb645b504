// Table-driven Filter tests for plugins (tests only): a pod, a node (with pods on it) and the
// expected code and reason; RunFilterCases runs PreFilter (Skip counts as "passes") and Filter.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/testing/builders.h"

namespace allot::scheduler::testing {

struct FilterCase {
  std::string name;
  PodBuilder pod;
  NodeBuilder node;
  Code code;
  std::string reason;
  std::vector<std::shared_ptr<api::Pod>> existing = {};
};

// Runs PreFilter (when the plugin has one; Skip means "passes") and Filter.
template <class P>
void RunFilterCases(P& plugin, const std::vector<FilterCase>& cases) {
  for (const FilterCase& c : cases) {
    CycleState state;
    PodInfoPtr pod = c.pod.Info();
    NodeInfo node = MakeNodeInfo(c.node.Build(), c.existing);
    Status st;
    if constexpr (std::is_base_of_v<PreFilterPlugin, P>) {
      PreFilterResult r;
      st = plugin.PreFilter(state, *pod, r);
      if (st.IsSkip()) {
        EXPECT_EQ(c.code, Code::kSuccess) << c.name;
        continue;
      }
      ASSERT_TRUE(st.IsSuccess()) << c.name << ": " << st.ToString();
    }
    st = plugin.Filter(state, *pod, node);
    EXPECT_EQ(st.code(), c.code) << c.name << ": " << st.ToString();
    EXPECT_EQ(st.Message(), c.reason) << c.name;
  }
}

}  // namespace allot::scheduler::testing
