// Component schemas for OpenAPI v3, from SchemaNode trees. Internal to openapi.cc.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/object.h"
#include "api/machinery/reflect.h"

namespace allot::apiserver {

struct Gvk {
  std::string group, version, kind;
};

// Collects the object schemas reachable from a document's kinds and names them as Kubernetes
// does ("io.k8s.api.core.v1.Pod", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), then
// writes them as components.schemas.
class SchemaSet {
 public:
  // `prefix` names the document's own types: "io.k8s.api.core.v1".
  explicit SchemaSet(std::string prefix) : prefix_(std::move(prefix)) {}

  // Adds a top-level kind (with apiVersion/kind properties and the GVK extension).
  void AddKind(const api::SchemaNode& node, const Gvk& gvk);
  // Adds the list kind of a kind added before: items, metadata (ListMeta).
  void AddList(const Gvk& item, const Gvk& list);

  // "#/components/schemas/<name>" of a kind or list added before.
  std::string KindRef(const Gvk& gvk) const;

  // Writes the members of components.schemas (the caller opens and closes the object).
  void Write(api::JsonWriter& w) const;

 private:
  struct Component {
    const api::SchemaNode* node = nullptr;  // null for list kinds
    std::vector<Gvk> gvks;                  // set for kinds and lists
    Gvk list_item;                          // list kinds only
  };
  void Collect(const api::SchemaNode& node);
  std::string NameFor(const api::SchemaNode& node);
  std::string Ref(const api::SchemaNode& node) const;

  void WriteObject(api::JsonWriter& w, const api::SchemaNode& node, const Component& c) const;
  void WriteList(api::JsonWriter& w, const Component& c) const;
  void WriteField(api::JsonWriter& w, const api::SchemaNode& parent,
                  const api::SchemaNode::Field& f) const;
  void WriteValue(api::JsonWriter& w, const api::SchemaNode& node) const;

  const std::string prefix_;
  std::map<const api::SchemaNode*, std::string> names_;
  std::map<std::string, Component> components_;  // by name, written sorted
};

// The fixed meta.k8s.io components every document references (Status, DeleteOptions, Patch).
void WriteMetaComponents(api::JsonWriter& w);
extern const char kStatusRef[];
extern const char kDeleteOptionsRef[];
extern const char kPatchRef[];

}  // namespace allot::apiserver
