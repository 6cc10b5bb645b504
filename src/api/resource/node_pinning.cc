#include "api/resource/node_pinning.h"

namespace allot::api {

NodeSelector PinnedTo(const std::string& node) {
  NodeSelector sel;
  sel.nodeSelectorTerms.push_back(
      {.matchFields = {{.key = "metadata.name", .operator_ = "In", .values = {node}}}});
  return sel;
}

std::string PinnedNode(const NodeSelector& selector) {
  if (selector.nodeSelectorTerms.size() != 1) return "";
  const NodeSelectorTerm& term = selector.nodeSelectorTerms[0];
  if (!term.matchExpressions.empty() || term.matchFields.size() != 1) return "";
  const NodeSelectorRequirement& r = term.matchFields[0];
  if (r.key != "metadata.name" || r.operator_ != "In" || r.values.size() != 1) return "";
  return r.values[0];
}

}  // namespace allot::api
