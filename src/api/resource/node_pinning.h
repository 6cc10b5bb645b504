// The node selector that pins an allocation to one node — `metadata.name In [<node>]` as a
// matchFields requirement, the shape kube-scheduler's allocator writes for node-local and
// bindsToNode devices — shared by the allocator, drivers and their tests.
#pragma once

#include <string>

#include "api/machinery/meta.h"

namespace allot::api {

NodeSelector PinnedTo(const std::string& node);
// The node a PinnedTo selector names; "" for any other selector.
std::string PinnedNode(const NodeSelector& selector);

}  // namespace allot::api
