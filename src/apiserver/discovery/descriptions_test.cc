// The description catalog against the API's schemas: every type and field of every served kind
// is described (so `kubectl explain` has something to say of each), and every entry names a type
// or field that exists (so a renamed field does not leave a stale line behind).
#include "apiserver/discovery/descriptions.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "api/machinery/reflect.h"
#include "api/machinery/resources.h"
#include "apiserver/discovery/openapi.h"
#include "apiserver/testing/server_fixture.h"

namespace allot::apiserver {
namespace {

using api::SchemaNode;

// "Type" and "Type.field" of every object schema reachable from `node`.
void Collect(const SchemaNode& node, std::set<std::string>& keys,
             std::set<const SchemaNode*>& seen) {
  if (node.kind == SchemaNode::Kind::kArray || node.kind == SchemaNode::Kind::kMap) {
    if (node.elem) Collect(*node.elem, keys, seen);
    return;
  }
  if (node.kind != SchemaNode::Kind::kObject || !seen.insert(&node).second) return;
  if (node.fields.empty()) return;  // a served version described only by apiVersion and kind
  keys.insert(node.type_name);
  for (const SchemaNode::Field& f : node.fields) {
    keys.insert(node.type_name + "." + f.name);
    Collect(*f.node, keys, seen);
  }
}

std::set<std::string> SchemaKeys() {
  std::set<std::string> keys;
  std::set<const SchemaNode*> seen;
  const api::ResourceRegistry& registry = api::ResourceRegistry::Default();
  for (const api::ResourceInfo& r : registry.All()) {
    if (r.type->schema) Collect(r.type->schema(), keys, seen);
  }
  for (const api::ServedVersion& sv : registry.ServedVersions()) {
    if (sv.view.type->schema) Collect(sv.view.type->schema(), keys, seen);
  }
  Collect(api::reflect::SchemaOf<api::ListMeta>(), keys, seen);  // every list kind's metadata
  return keys;
}

TEST(DescriptionsTest, TheCatalogIsWellFormed) {
  EXPECT_EQ(MalformedDescriptionLines(), std::vector<std::string_view>{});
}

TEST(DescriptionsTest, EveryTypeAndFieldOfEveryServedKindIsDescribed) {
  std::vector<std::string> missing;
  for (const std::string& key : SchemaKeys()) {
    size_t dot = key.find('.');
    std::string_view text = dot == std::string::npos
                                ? TypeDescription(key)
                                : FieldDescription(key.substr(0, dot), key.substr(dot + 1));
    if (text.empty()) missing.push_back(key);
  }
  std::string list;
  for (const std::string& m : missing) list += "\n  " + m;
  EXPECT_TRUE(missing.empty()) << missing.size() << " without a description:" << list;
}

TEST(DescriptionsTest, EveryEntryNamesATypeOrFieldThatExists) {
  const std::set<std::string> keys = SchemaKeys();
  std::vector<std::string> stale;
  for (std::string_view key : DescriptionKeys()) {
    if (!keys.count(std::string(key))) stale.emplace_back(key);
  }
  std::string list;
  for (const std::string& k : stale) list += "\n  " + k;
  EXPECT_TRUE(stale.empty()) << "entries for no type or field:" << list;
}

// What kubectl explain reads: the kind's description, and each property's beside its reference.
TEST(DescriptionsTest, TheOpenApiDocumentsCarryThem) {
  OpenApiDocs docs(api::ResourceRegistry::Default(), "v1.37.0");
  const std::string* core = docs.Document("", "v1");
  ASSERT_NE(core, nullptr);
  J doc(*core);
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc["/components/schemas/io.k8s.api.core.v1.Pod/description"],
            std::string(TypeDescription("Pod")));
  EXPECT_EQ(doc["/components/schemas/io.k8s.api.core.v1.PodSpec/properties/nodeName/description"],
            std::string(FieldDescription("PodSpec", "nodeName")));
  EXPECT_NE(doc["/components/schemas/io.k8s.api.core.v1.Pod/properties/spec/description"],
            "<missing>");
  EXPECT_NE(doc["/components/schemas/io.k8s.api.core.v1.PodList/description"], "<missing>");
  EXPECT_NE(doc["/components/schemas/io.k8s.api.core.v1.Pod/properties/kind/description"],
            "<missing>");
}

}  // namespace
}  // namespace allot::apiserver
