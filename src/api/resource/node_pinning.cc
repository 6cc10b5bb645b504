#include "api/resource/node_pinning.h"

namespace allot::api {

NodeSelector PinnedTo(const std::string& node) {
  NodeSelector sel;
  sel.nodeSelectorTerms.push_back(
      {.matchFields = {{.key = "metadata.name", .operator_ = "In", .values = {node}}}});
  return sel;
}

}  // namespace allot::api
