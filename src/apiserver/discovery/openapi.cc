#include "apiserver/discovery/openapi.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <cstdio>
#include <memory>
#include <vector>

#include "api/codec/codec.h"
#include "apiserver/discovery/openapi_schema.h"

namespace allot::apiserver {

namespace {

using api::JsonWriter;

void KV(JsonWriter& w, const char* key, std::string_view value) {
  w.Key(key);
  api::WriteString(w, value);
}

// "io.k8s.api.core.v1", "io.k8s.api.resource.v1", "sh.koordinator.scheduling.v1alpha1".
std::string SchemaPrefix(std::string_view group, std::string_view version) {
  if (group.empty()) return "io.k8s.api.core." + std::string(version);
  constexpr std::string_view kK8s = ".k8s.io";
  if (group.size() > kK8s.size() && group.substr(group.size() - kK8s.size()) == kK8s) {
    std::string_view first = group.substr(0, group.find('.'));
    return "io.k8s.api." + std::string(first) + "." + std::string(version);
  }
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= group.size()) {
    size_t dot = group.find('.', i);
    if (dot == std::string_view::npos) dot = group.size();
    parts.push_back(group.substr(i, dot - i));
    i = dot + 1;
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    out.append(*it);
    out += '.';
  }
  return out + std::string(version);
}

// "CoreV1", "ResourceV1", "SchedulingKoordinatorShV1alpha1": operationId infix, as Kubernetes.
std::string OperationInfix(std::string_view group, std::string_view version) {
  std::string out;
  std::string_view g = group.empty() ? std::string_view("core") : group;
  if (g.size() > 7 && g.substr(g.size() - 7) == ".k8s.io") g = g.substr(0, g.size() - 7);
  bool upper = true;
  for (char c : g) {
    if (c == '.' || c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  out += static_cast<char>(std::toupper(static_cast<unsigned char>(version[0])));
  out.append(version.substr(1));
  return out;
}

// --- parameters -------------------------------------------------------------------------------

void Param(JsonWriter& w, const char* name, const char* in, const char* type,
           const char* description) {
  w.StartObject();
  KV(w, "name", name);
  KV(w, "in", in);
  KV(w, "description", description);
  if (std::string_view(in) == "path") {
    w.Key("required");
    w.Bool(true);
  }
  w.Key("schema");
  w.StartObject();
  KV(w, "type", type);
  w.Key("uniqueItems");
  w.Bool(true);
  w.EndObject();
  w.EndObject();
}

void PathParams(JsonWriter& w, bool named, bool namespaced) {
  w.Key("parameters");
  w.StartArray();
  if (named) Param(w, "name", "path", "string", "name of the object");
  if (namespaced) {
    Param(w, "namespace", "path", "string", "object name and auth scope, such as for teams");
  }
  Param(w, "pretty", "query", "string", "If 'true', then the output is pretty printed.");
  w.EndArray();
}

void ListParams(JsonWriter& w) {
  Param(w, "allowWatchBookmarks", "query", "boolean", "requests watch events with type BOOKMARK");
  Param(w, "continue", "query", "string", "continue token from a previous list call");
  Param(w, "fieldSelector", "query", "string", "restrict the returned objects by their fields");
  Param(w, "labelSelector", "query", "string", "restrict the returned objects by their labels");
  Param(w, "limit", "query", "integer", "maximum number of responses for a list call");
  Param(w, "resourceVersion", "query", "string", "resource version constraint");
  Param(w, "resourceVersionMatch", "query", "string", "how resourceVersion is applied");
  Param(w, "sendInitialEvents", "query", "boolean", "watch-list initial events");
  Param(w, "timeoutSeconds", "query", "integer", "timeout for the list/watch call");
  Param(w, "watch", "query", "boolean", "watch for changes and return them as a stream");
}

void WriteParams(JsonWriter& w, bool patch) {
  Param(w, "dryRun", "query", "string", "when present, modifications are not persisted");
  Param(w, "fieldManager", "query", "string", "name of the actor making the change");
  Param(w, "fieldValidation", "query", "string",
        "how the server handles unknown or duplicate fields: Ignore, Warn (default) or Strict");
  if (patch) Param(w, "force", "query", "boolean", "force apply requests (re-acquire conflicts)");
}

void DeleteParams(JsonWriter& w) {
  Param(w, "dryRun", "query", "string", "when present, modifications are not persisted");
  Param(w, "gracePeriodSeconds", "query", "integer", "duration before the object is deleted");
  Param(w, "propagationPolicy", "query", "string", "Orphan, Background or Foreground");
}

// --- operations -------------------------------------------------------------------------------

struct OpSpec {
  const char* method;  // "get", "post", ...
  const char* action;  // x-kubernetes-action
  std::string operation_id;
  std::string description;
  Gvk gvk;
  std::string response_ref;
  std::string body_ref;                 // "" for none
  std::vector<std::string> body_types;  // request body media types
  enum { kNone, kList, kWrite, kPatch, kDelete, kDeleteCollection } params = kNone;
};

void Responses(JsonWriter& w, const OpSpec& op) {
  w.Key("responses");
  w.StartObject();
  std::vector<const char*> codes = {"200"};
  if (std::string_view(op.action) == "post") codes = {"200", "201", "202"};
  if (std::string_view(op.action) == "put" || std::string_view(op.action) == "patch") {
    codes = {"200", "201"};
  }
  if (std::string_view(op.action) == "delete") codes = {"200", "202"};
  for (const char* code : codes) {
    w.Key(code);
    w.StartObject();
    KV(w, "description", "OK");
    w.Key("content");
    w.StartObject();
    w.Key("application/json");
    w.StartObject();
    w.Key("schema");
    w.StartObject();
    KV(w, "$ref", op.response_ref);
    w.EndObject();
    w.EndObject();
    w.EndObject();
    w.EndObject();
  }
  w.EndObject();
}

void RequestBody(JsonWriter& w, const OpSpec& op) {
  if (op.body_ref.empty()) return;
  w.Key("requestBody");
  w.StartObject();
  w.Key("content");
  w.StartObject();
  for (const std::string& type : op.body_types) {
    w.Key(type.data(), static_cast<rapidjson::SizeType>(type.size()));
    w.StartObject();
    w.Key("schema");
    w.StartObject();
    KV(w, "$ref", op.body_ref);
    w.EndObject();
    w.EndObject();
  }
  w.EndObject();
  w.Key("required");
  w.Bool(std::string_view(op.action) != "delete" &&
         std::string_view(op.action) != "deletecollection");
  w.EndObject();
}

void Operation(JsonWriter& w, const OpSpec& op, const std::string& tag) {
  w.Key(op.method);
  w.StartObject();
  w.Key("tags");
  w.StartArray();
  api::WriteString(w, tag);
  w.EndArray();
  KV(w, "description", op.description);
  KV(w, "operationId", op.operation_id);
  if (op.params != OpSpec::kNone) {
    w.Key("parameters");
    w.StartArray();
    if (op.params == OpSpec::kList || op.params == OpSpec::kDeleteCollection) ListParams(w);
    if (op.params == OpSpec::kWrite) WriteParams(w, false);
    if (op.params == OpSpec::kPatch) WriteParams(w, true);
    if (op.params == OpSpec::kDelete || op.params == OpSpec::kDeleteCollection) DeleteParams(w);
    w.EndArray();
  }
  RequestBody(w, op);
  Responses(w, op);
  KV(w, "x-kubernetes-action", op.action);
  w.Key("x-kubernetes-group-version-kind");
  w.StartObject();
  KV(w, "group", op.gvk.group);
  KV(w, "kind", op.gvk.kind);
  KV(w, "version", op.gvk.version);
  w.EndObject();
  w.EndObject();
}

struct PathSpec {
  std::string path;
  bool named = false;
  bool namespaced = false;
  std::vector<OpSpec> ops;
};

// --- building one document --------------------------------------------------------------------

class DocBuilder {
 public:
  DocBuilder(const api::ResourceRegistry& registry, std::string group, std::string version)
      : registry_(registry),
        group_(std::move(group)),
        version_(std::move(version)),
        schemas_(SchemaPrefix(group_, version_)),
        infix_(OperationInfix(group_, version_)),
        tag_(infix_) {}

  std::string Build(const std::string& server_version);

 private:
  void AddResource(const api::ResourceInfo& r, const api::SchemaNode& schema);
  OpSpec MakeOp(const char* method, const char* action, const std::string& verb,
                const api::ResourceInfo& r, const std::string& kind_suffix, const Gvk& gvk);

  const api::ResourceRegistry& registry_;
  const std::string group_, version_;
  SchemaSet schemas_;
  const std::string infix_;
  const std::string tag_;
  std::vector<PathSpec> paths_;
  std::vector<std::unique_ptr<api::SchemaNode>> undescribed_;  // kinds of reshaped versions
};

OpSpec DocBuilder::MakeOp(const char* method, const char* action, const std::string& verb,
                          const api::ResourceInfo& r, const std::string& kind_suffix,
                          const Gvk& gvk) {
  OpSpec op;
  op.method = method;
  op.action = action;
  std::string scope = r.namespaced && verb != "listAll" ? "Namespaced" : "";
  std::string v = verb == "listAll" ? "list" : verb;
  op.operation_id = v + infix_ + scope + r.type->kind + kind_suffix;
  if (verb == "listAll") op.operation_id += "ForAllNamespaces";
  op.description = v + " " + r.type->kind + kind_suffix;
  op.gvk = gvk;
  op.response_ref = schemas_.KindRef(gvk);
  return op;
}

void DocBuilder::AddResource(const api::ResourceInfo& r, const api::SchemaNode& schema) {
  const Gvk gvk{r.group, r.version, r.type->kind};
  const Gvk list_gvk{r.group, r.version, r.type->kind + "List"};
  schemas_.AddKind(schema, gvk);
  schemas_.AddList(gvk, list_gvk);
  const std::string prefix =
      group_.empty() ? "/api/" + version_ : "/apis/" + group_ + "/" + version_;
  const std::string base = prefix + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.resource;
  std::vector<std::string> patch_types = {"application/apply-patch+yaml",
                                          "application/json-patch+json",
                                          "application/merge-patch+json"};
  if (group_.empty()) patch_types.push_back("application/strategic-merge-patch+json");
  const std::vector<std::string> body_types = {"*/*"};
  const std::string kind_ref = schemas_.KindRef(gvk);

  // An operation with a request body of schema `ref`, as `params` describe it.
  const auto with_body = [&](OpSpec op, decltype(OpSpec::params) params, const std::string& ref,
                             const std::vector<std::string>& types) {
    op.params = params;
    op.body_ref = ref;
    op.body_types = types;
    return op;
  };
  // Replace and patch of the object (`suffix` "") or of its status ("Status").
  const auto replace = [&](const std::string& suffix) {
    return with_body(MakeOp("put", "put", "replace", r, suffix, gvk), OpSpec::kWrite, kind_ref,
                     body_types);
  };
  const auto patch = [&](const std::string& suffix) {
    return with_body(MakeOp("patch", "patch", "patch", r, suffix, gvk), OpSpec::kPatch, kPatchRef,
                     patch_types);
  };

  PathSpec coll{base, false, r.namespaced, {}};
  OpSpec list = MakeOp("get", "list", "list", r, "", list_gvk);
  list.params = OpSpec::kList;
  list.gvk = gvk;
  OpSpec create =
      with_body(MakeOp("post", "post", "create", r, "", gvk), OpSpec::kWrite, kind_ref, body_types);
  OpSpec delete_coll =
      with_body(MakeOp("delete", "deletecollection", "deleteCollection", r, "", gvk),
                OpSpec::kDeleteCollection, kDeleteOptionsRef, body_types);
  delete_coll.response_ref = kStatusRef;
  coll.ops = {list, create, delete_coll};
  paths_.push_back(std::move(coll));

  PathSpec item{base + "/{name}", true, r.namespaced, {}};
  OpSpec del = with_body(MakeOp("delete", "delete", "delete", r, "", gvk), OpSpec::kDelete,
                         kDeleteOptionsRef, body_types);
  item.ops = {MakeOp("get", "get", "read", r, "", gvk), replace(""), patch(""), del};
  paths_.push_back(std::move(item));

  if (r.status_subresource) {
    PathSpec status{base + "/{name}/status", true, r.namespaced, {}};
    status.ops = {MakeOp("get", "get", "read", r, "Status", gvk), replace("Status"),
                  patch("Status")};
    paths_.push_back(std::move(status));
  }
  if (r.namespaced) {
    PathSpec all{prefix + "/" + r.resource, false, false, {}};
    OpSpec list_all = MakeOp("get", "list", "listAll", r, "", gvk);
    list_all.params = OpSpec::kList;
    all.ops = {list_all};
    paths_.push_back(std::move(all));
  }
}

std::string DocBuilder::Build(const std::string& server_version) {
  for (const auto& r : registry_.All()) {
    if (r.group == group_ && r.version == version_) AddResource(r, r.type->schema());
  }
  // Served versions: the stored schema where the shape is the same, else one that leaves the
  // fields undescribed (an object with no fields: SchemaSet writes it as preserving unknown
  // fields), so that clients' validation does not refuse what the conversion accepts.
  for (const auto& sv : registry_.ServedVersions()) {
    if (sv.view.group != group_ || sv.view.version != version_) continue;
    if (sv.same_shape) {
      AddResource(sv.view, sv.view.type->schema());
      continue;
    }
    undescribed_.push_back(std::make_unique<api::SchemaNode>());
    undescribed_.back()->type_name = sv.view.type->kind;
    AddResource(sv.view, *undescribed_.back());
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  KV(w, "openapi", "3.0.0");
  w.Key("info");
  w.StartObject();
  KV(w, "title", "Kubernetes");
  KV(w, "version", server_version);
  w.EndObject();
  w.Key("paths");
  w.StartObject();
  for (const PathSpec& p : paths_) {
    w.Key(p.path.data(), static_cast<rapidjson::SizeType>(p.path.size()));
    w.StartObject();
    for (const OpSpec& op : p.ops) Operation(w, op, tag_);
    PathParams(w, p.named, p.namespaced);
    w.EndObject();
  }
  w.EndObject();
  w.Key("components");
  w.StartObject();
  w.Key("schemas");
  w.StartObject();
  schemas_.Write(w);
  WriteMetaComponents(w);
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// FNV-1a, 64 bits, as 16 upper-case hex digits: enough to tell documents apart for caching.
std::string HashOf(std::string_view text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llX", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

std::string OpenApiPathKey(std::string_view group, std::string_view version) {
  if (group.empty()) return "api/" + std::string(version);
  return "apis/" + std::string(group) + "/" + std::string(version);
}

OpenApiDocs::OpenApiDocs(const api::ResourceRegistry& registry, std::string server_version)
    : registry_(registry), server_version_(std::move(server_version)) {}

void OpenApiDocs::Build() {
  std::vector<std::pair<std::string, std::string>> gvs;
  auto add_gv = [&](const api::ResourceInfo& r) {
    bool seen = false;
    for (const auto& gv : gvs) seen = seen || (gv.first == r.group && gv.second == r.version);
    if (!seen) gvs.emplace_back(r.group, r.version);
  };
  for (const auto& r : registry_.All()) add_gv(r);
  for (const auto& sv : registry_.ServedVersions()) add_gv(sv.view);
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("paths");
  w.StartObject();
  for (const auto& [group, version] : gvs) {
    Doc doc;
    doc.json = DocBuilder(registry_, group, version).Build(server_version_);
    doc.hash = HashOf(doc.json);
    std::string key = OpenApiPathKey(group, version);
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    w.StartObject();
    KV(w, "serverRelativeURL", "/openapi/v3/" + key + "?hash=" + doc.hash);
    w.EndObject();
    docs_[key] = std::move(doc);
  }
  w.EndObject();
  w.EndObject();
  index_.assign(buf.GetString(), buf.GetSize());
  // v2 from the preferred (first listed) versions first: a definition two versions share by
  // name is taken from the first.
  std::vector<const std::string*> v3;
  for (const auto& [group, version] : gvs) v3.push_back(&docs_[OpenApiPathKey(group, version)].json);
  v2_ = BuildOpenApiV2(v3, server_version_);
}

const OpenApiV2& OpenApiDocs::V2() {
  std::call_once(once_, [this] { Build(); });
  return v2_;
}

const std::string& OpenApiDocs::Index() {
  std::call_once(once_, [this] { Build(); });
  return index_;
}

const std::string* OpenApiDocs::Document(std::string_view group, std::string_view version) {
  std::call_once(once_, [this] { Build(); });
  auto it = docs_.find(OpenApiPathKey(group, version));
  return it == docs_.end() ? nullptr : &it->second.json;
}

}  // namespace allot::apiserver
