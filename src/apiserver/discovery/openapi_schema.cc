#include "apiserver/discovery/openapi_schema.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "api/codec/codec.h"
#include "apiserver/discovery/descriptions.h"

namespace allot::apiserver {

namespace {

using api::JsonWriter;
using api::SchemaNode;
using Kind = api::SchemaNode::Kind;

constexpr std::string_view kMetaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1";
constexpr std::string_view kCorePrefix = "io.k8s.api.core.v1";

// metav1 and core/v1 types that other groups embed keep their home names.
bool IsMetaType(std::string_view name) {
  for (std::string_view n : {"ObjectMeta", "ListMeta", "OwnerReference", "ManagedFieldsEntry",
                             "Condition", "LabelSelector", "LabelSelectorRequirement"}) {
    if (n == name) return true;
  }
  return false;
}

bool IsCoreType(std::string_view name) {
  for (std::string_view n : {"NodeSelector", "NodeSelectorTerm", "NodeSelectorRequirement",
                             "Toleration", "Taint", "ObjectReference"}) {
    if (n == name) return true;
  }
  return false;
}

void KV(JsonWriter& w, const char* key, std::string_view value) {
  w.Key(key);
  api::WriteString(w, value);
}

void TypeOnly(JsonWriter& w, const char* type, const char* format = nullptr) {
  KV(w, "type", type);
  if (format) KV(w, "format", format);
}

void GvkObject(JsonWriter& w, const Gvk& g) {
  w.StartObject();
  KV(w, "group", g.group);
  KV(w, "kind", g.kind);
  KV(w, "version", g.version);
  w.EndObject();
}

void GvkExtension(JsonWriter& w, const std::vector<Gvk>& gvks) {
  w.Key("x-kubernetes-group-version-kind");
  w.StartArray();
  for (const Gvk& g : gvks) GvkObject(w, g);
  w.EndArray();
}

void RefValue(JsonWriter& w, std::string_view ref) {
  // Kubernetes' v3 documents wrap references in allOf so that siblings (default, description)
  // are allowed; kubectl's patch-meta lookup resolves allOf[0].$ref.
  w.Key("allOf");
  w.StartArray();
  w.StartObject();
  KV(w, "$ref", ref);
  w.EndObject();
  w.EndArray();
  w.Key("default");
  w.StartObject();
  w.EndObject();
}

// The apiVersion and kind properties every kind and list has (metav1.TypeMeta).
void TypeMetaProperties(JsonWriter& w) {
  w.Key("apiVersion");
  w.StartObject();
  KV(w, "description",
     "The group and version of the schema this object is written in (\"v1\" for the core "
     "group); the server converts between the versions it serves.");
  TypeOnly(w, "string");
  w.EndObject();
  w.Key("kind");
  w.StartObject();
  KV(w, "description",
     "The object's kind in CamelCase: which schema of its group and version it follows.");
  TypeOnly(w, "string");
  w.EndObject();
}

void ListExtensions(JsonWriter& w, const api::FieldTags& tags) {
  if (tags.merge_key) {
    KV(w, "x-kubernetes-list-type", "map");
    w.Key("x-kubernetes-list-map-keys");
    w.StartArray();
    api::WriteString(w, tags.merge_key);
    w.EndArray();
    KV(w, "x-kubernetes-patch-merge-key", tags.merge_key);
    KV(w, "x-kubernetes-patch-strategy", "merge");
  } else if (tags.set) {
    KV(w, "x-kubernetes-list-type", "set");
    KV(w, "x-kubernetes-patch-strategy", "merge");
  } else if (tags.atomic) {
    KV(w, "x-kubernetes-list-type", "atomic");
  }
}

}  // namespace

const char kStatusRef[] = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status";
const char kDeleteOptionsRef[] =
    "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
const char kPatchRef[] = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch";

std::string SchemaSet::NameFor(const SchemaNode& node) {
  std::string base;
  if (IsMetaType(node.type_name)) {
    base = std::string(kMetaPrefix) + "." + node.type_name;
  } else if (IsCoreType(node.type_name)) {
    base = std::string(kCorePrefix) + "." + node.type_name;
  } else {
    base = prefix_ + "." + (node.type_name.empty() ? std::string("Object") : node.type_name);
  }
  std::string name = base;
  for (int i = 2; components_.count(name); ++i) name = base + std::to_string(i);
  return name;
}

void SchemaSet::Collect(const SchemaNode& node) {
  if (node.kind == Kind::kArray || node.kind == Kind::kMap) {
    if (node.elem) Collect(*node.elem);
    return;
  }
  if (node.kind != Kind::kObject || names_.count(&node)) return;
  std::string name = NameFor(node);
  names_[&node] = name;
  components_[name].node = &node;
  for (const SchemaNode::Field& f : node.fields) Collect(*f.node);
}

void SchemaSet::AddKind(const SchemaNode& node, const Gvk& gvk) {
  Collect(node);
  components_[names_[&node]].gvks.push_back(gvk);
}

void SchemaSet::AddList(const Gvk& item, const Gvk& list) {
  Collect(api::reflect::SchemaOf<api::ListMeta>());
  std::string item_ref = KindRef(item);
  std::string name = item_ref.substr(item_ref.rfind('/') + 1) + "List";
  Component& c = components_[name];
  c.gvks.push_back(list);
  c.list_item = item;
}

std::string SchemaSet::KindRef(const Gvk& gvk) const {
  for (const auto& [name, c] : components_) {
    for (const Gvk& g : c.gvks) {
      if (g.group == gvk.group && g.version == gvk.version && g.kind == gvk.kind) {
        return "#/components/schemas/" + name;
      }
    }
  }
  return kStatusRef;
}

std::string SchemaSet::Ref(const SchemaNode& node) const {
  auto it = names_.find(&node);
  return "#/components/schemas/" + (it == names_.end() ? std::string("unknown") : it->second);
}

void SchemaSet::WriteValue(JsonWriter& w, const SchemaNode& node) const {
  switch (node.kind) {
    case Kind::kObject:
      RefValue(w, Ref(node));
      break;
    case Kind::kArray:
      TypeOnly(w, "array");
      w.Key("items");
      w.StartObject();
      if (node.elem) WriteValue(w, *node.elem);
      w.EndObject();
      break;
    case Kind::kMap:
      TypeOnly(w, "object");
      w.Key("additionalProperties");
      w.StartObject();
      if (node.elem) WriteValue(w, *node.elem);
      w.EndObject();
      break;
    case Kind::kString:
    case Kind::kDuration:
      TypeOnly(w, "string");
      break;
    case Kind::kInteger:
      TypeOnly(w, "integer", node.format ? node.format : "int64");
      break;
    case Kind::kBoolean:
      TypeOnly(w, "boolean");
      break;
    case Kind::kNumber:
      TypeOnly(w, "number", "double");
      break;
    case Kind::kQuantity:
    case Kind::kIntOrString:
      w.Key("x-kubernetes-int-or-string");
      w.Bool(true);
      w.Key("anyOf");
      w.StartArray();
      w.StartObject();
      TypeOnly(w, "integer");
      w.EndObject();
      w.StartObject();
      TypeOnly(w, "string");
      w.EndObject();
      w.EndArray();
      break;
    case Kind::kTime:
    case Kind::kMicroTime:
      TypeOnly(w, "string", "date-time");
      break;
    case Kind::kRaw:
      w.Key("x-kubernetes-preserve-unknown-fields");
      w.Bool(true);
      break;
  }
}

void SchemaSet::WriteField(JsonWriter& w, const SchemaNode& parent,
                           const SchemaNode::Field& f) const {
  w.Key(f.name);
  w.StartObject();
  std::string_view doc = f.tags.doc ? f.tags.doc : FieldDescription(parent.type_name, f.name);
  if (!doc.empty()) KV(w, "description", doc);
  WriteValue(w, *f.node);
  if (f.node->kind == Kind::kArray) ListExtensions(w, f.tags);
  if (f.node->kind == Kind::kMap && f.tags.atomic) KV(w, "x-kubernetes-map-type", "atomic");
  w.EndObject();
}

void SchemaSet::WriteObject(JsonWriter& w, const SchemaNode& node, const Component& c) const {
  w.StartObject();
  if (std::string_view doc = TypeDescription(node.type_name); !doc.empty()) {
    KV(w, "description", doc);
  }
  TypeOnly(w, "object");
  w.Key("properties");
  w.StartObject();
  if (!c.gvks.empty()) TypeMetaProperties(w);
  for (const SchemaNode::Field& f : node.fields) WriteField(w, node, f);
  w.EndObject();
  if (node.fields.empty()) {
    // A kind whose shape this server does not describe (a served version that differs from the
    // stored one): clients validate nothing but apiVersion and kind.
    w.Key("x-kubernetes-preserve-unknown-fields");
    w.Bool(true);
  }
  std::vector<const char*> required;
  for (const SchemaNode::Field& f : node.fields) {
    if (f.tags.required) required.push_back(f.name);
  }
  if (!required.empty()) {
    w.Key("required");
    w.StartArray();
    for (const char* r : required) w.String(r);
    w.EndArray();
  }
  if (!c.gvks.empty()) GvkExtension(w, c.gvks);
  w.EndObject();
}

void SchemaSet::WriteList(JsonWriter& w, const Component& c) const {
  w.StartObject();
  KV(w, "description", "A list of " + c.list_item.kind + " objects.");
  TypeOnly(w, "object");
  w.Key("properties");
  w.StartObject();
  TypeMetaProperties(w);
  w.Key("items");
  w.StartObject();
  KV(w, "description", "The " + c.list_item.kind + " objects, in the order the server lists them.");
  TypeOnly(w, "array");
  w.Key("items");
  w.StartObject();
  RefValue(w, KindRef(c.list_item));
  w.EndObject();
  w.EndObject();
  w.Key("metadata");
  w.StartObject();
  KV(w, "description", "Where the list stands: its resourceVersion, and continue and "
                       "remainingItemCount when it is one page of a longer list.");
  RefValue(w, Ref(api::reflect::SchemaOf<api::ListMeta>()));
  w.EndObject();
  w.EndObject();
  w.Key("required");
  w.StartArray();
  w.String("items");
  w.EndArray();
  GvkExtension(w, c.gvks);
  w.EndObject();
}

void SchemaSet::Write(JsonWriter& w) const {
  for (const auto& [name, c] : components_) {
    w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    if (c.node) {
      WriteObject(w, *c.node, c);
    } else {
      WriteList(w, c);
    }
  }
}

void WriteMetaComponents(JsonWriter& w) {
  auto simple = [&](const char* ref, const char* description,
                    std::initializer_list<std::pair<const char*, const char*>> props) {
    std::string name = std::string(ref).substr(std::string(ref).rfind('/') + 1);
    w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    w.StartObject();
    KV(w, "description", description);
    TypeOnly(w, "object");
    w.Key("properties");
    w.StartObject();
    for (const auto& [prop, type] : props) {
      w.Key(prop);
      w.StartObject();
      TypeOnly(w, type);
      if (std::string_view(type) == "array") {  // of strings (DeleteOptions.dryRun)
        w.Key("items");
        w.StartObject();
        TypeOnly(w, "string");
        w.EndObject();
      }
      w.EndObject();
    }
    w.EndObject();
    w.EndObject();
  };
  simple(kStatusRef, "Status is a return value for calls that don't return other objects.",
         {{"apiVersion", "string"},
          {"code", "integer"},
          {"details", "object"},
          {"kind", "string"},
          {"message", "string"},
          {"metadata", "object"},
          {"reason", "string"},
          {"status", "string"}});
  simple(kDeleteOptionsRef, "DeleteOptions may be provided when deleting an API object.",
         {{"apiVersion", "string"},
          {"dryRun", "array"},
          {"gracePeriodSeconds", "integer"},
          {"kind", "string"},
          {"orphanDependents", "boolean"},
          {"preconditions", "object"},
          {"propagationPolicy", "string"}});
  simple(kPatchRef,
         "Patch is provided to give a concrete name and type to the Kubernetes PATCH request "
         "body.",
         {});
}

}  // namespace allot::apiserver
