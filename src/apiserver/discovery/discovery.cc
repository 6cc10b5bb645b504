#include "apiserver/discovery/discovery.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "api/codec/codec.h"

namespace allot::apiserver {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void KV(Writer& w, const char* key, std::string_view value) {
  w.Key(key);
  api::WriteString(w, value);
}

void Strings(Writer& w, const char* key, const std::vector<std::string>& values) {
  w.Key(key);
  w.StartArray();
  for (const auto& v : values) api::WriteString(w, v);
  w.EndArray();
}

std::string Done(const rapidjson::StringBuffer& buf) {
  return std::string(buf.GetString(), buf.GetSize());
}

const std::vector<std::string> kResourceVerbs = {"create", "delete", "deletecollection", "get",
                                                 "list",   "patch",  "update",           "watch"};

struct SubresourceInfo {
  std::string name;  // "status"
  std::string group, version, kind;
  std::vector<std::string> verbs;
};

std::vector<SubresourceInfo> Subresources(const api::ResourceInfo& r) {
  std::vector<SubresourceInfo> out;
  if (r.status_subresource) {
    out.push_back({"status", r.group, r.version, r.type->kind, {"get", "patch", "update"}});
  }
  if (r.group.empty() && r.resource == "pods") {
    for (const auto& extra : r.extra_subresources) {
      if (extra == "binding") out.push_back({"binding", "", "v1", "Binding", {"create"}});
      if (extra == "eviction") out.push_back({"eviction", "policy", "v1", "Eviction", {"create"}});
    }
  }
  return out;
}

// Every resource as discovery lists it: the stored resources, then the served versions' views
// (resource.k8s.io/v1beta2, events.k8s.io/v1, ...).
std::vector<const api::ResourceInfo*> Listed(const api::ResourceRegistry& registry) {
  std::vector<const api::ResourceInfo*> out;
  for (const auto& r : registry.All()) out.push_back(&r);
  for (const auto& sv : registry.ServedVersions()) out.push_back(&sv.view);
  return out;
}

// version.CompareKubeAwareVersionStrings' order: GA before beta before alpha, higher numbers
// first (v1, v1beta2, v1beta1, v1alpha3), as kube-apiserver lists a group's versions.
struct KubeVersion {
  int major = 0;
  int stability = 0;  // 2 GA, 1 beta, 0 alpha
  int minor = 0;
};

KubeVersion ParseKubeVersion(std::string_view v) {
  KubeVersion out;
  size_t i = v.empty() || v[0] != 'v' ? 0 : 1;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
    out.major = out.major * 10 + (v[i++] - '0');
  }
  std::string_view rest = v.substr(i);
  out.stability = rest.rfind("beta", 0) == 0 ? 1 : rest.rfind("alpha", 0) == 0 ? 0 : 2;
  for (char c : rest) {
    if (std::isdigit(static_cast<unsigned char>(c))) out.minor = out.minor * 10 + (c - '0');
  }
  return out;
}

bool PreferredFirst(const std::string& a, const std::string& b) {
  KubeVersion x = ParseKubeVersion(a), y = ParseKubeVersion(b);
  if (x.stability != y.stability) return x.stability > y.stability;
  if (x.major != y.major) return x.major > y.major;
  return x.minor > y.minor;
}

// Groups in registration order, each with its versions preferred first.
std::vector<std::pair<std::string, std::vector<std::string>>> Groups(
    const api::ResourceRegistry& registry, bool core) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const api::ResourceInfo* listed : Listed(registry)) {
    const api::ResourceInfo& r = *listed;
    if (r.group.empty() != core) continue;
    auto g = out.begin();
    while (g != out.end() && g->first != r.group) ++g;
    if (g == out.end()) {
      out.push_back({r.group, {}});
      g = std::prev(out.end());
    }
    bool seen = false;
    for (const auto& v : g->second) seen = seen || v == r.version;
    if (!seen) g->second.push_back(r.version);
  }
  for (auto& [group, versions] : out) {
    std::stable_sort(versions.begin(), versions.end(), PreferredFirst);
  }
  return out;
}

std::string GroupVersion(std::string_view group, std::string_view version) {
  return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
}

void GroupVersionEntry(Writer& w, std::string_view group, std::string_view version) {
  w.StartObject();
  KV(w, "groupVersion", GroupVersion(group, version));
  KV(w, "version", version);
  w.EndObject();
}

// An APIGroup's name, versions and preferredVersion (the members after kind and apiVersion).
void WriteGroupMembers(Writer& w, const std::string& name,
                       const std::vector<std::string>& versions) {
  KV(w, "name", name);
  w.Key("versions");
  w.StartArray();
  for (const auto& v : versions) GroupVersionEntry(w, name, v);
  w.EndArray();
  w.Key("preferredVersion");
  GroupVersionEntry(w, name, versions.front());
}

void WriteGroup(Writer& w, const std::string& name, const std::vector<std::string>& versions) {
  w.StartObject();
  WriteGroupMembers(w, name, versions);
  w.EndObject();
}

void LegacyResource(Writer& w, const api::ResourceInfo& r) {
  w.StartObject();
  KV(w, "name", r.resource);
  KV(w, "singularName", r.singular);
  w.Key("namespaced");
  w.Bool(r.namespaced);
  KV(w, "kind", r.type->kind);
  Strings(w, "verbs", kResourceVerbs);
  if (!r.short_names.empty()) Strings(w, "shortNames", r.short_names);
  if (!r.categories.empty()) Strings(w, "categories", r.categories);
  w.EndObject();
  for (const SubresourceInfo& s : Subresources(r)) {
    w.StartObject();
    KV(w, "name", r.resource + "/" + s.name);
    KV(w, "singularName", "");
    w.Key("namespaced");
    w.Bool(r.namespaced);
    if (s.group != r.group || s.version != r.version) {
      KV(w, "group", s.group);
      KV(w, "version", s.version);
    }
    KV(w, "kind", s.kind);
    Strings(w, "verbs", s.verbs);
    w.EndObject();
  }
}

void ResponseKind(Writer& w, std::string_view group, std::string_view version,
                  std::string_view kind) {
  w.Key("responseKind");
  w.StartObject();
  KV(w, "group", group);
  KV(w, "version", version);
  KV(w, "kind", kind);
  w.EndObject();
}

void AggregatedResource(Writer& w, const api::ResourceInfo& r) {
  w.StartObject();
  KV(w, "resource", r.resource);
  ResponseKind(w, r.group, r.version, r.type->kind);
  KV(w, "scope", r.namespaced ? "Namespaced" : "Cluster");
  KV(w, "singularResource", r.singular);
  Strings(w, "verbs", kResourceVerbs);
  if (!r.short_names.empty()) Strings(w, "shortNames", r.short_names);
  if (!r.categories.empty()) Strings(w, "categories", r.categories);
  std::vector<SubresourceInfo> subs = Subresources(r);
  if (!subs.empty()) {
    w.Key("subresources");
    w.StartArray();
    for (const SubresourceInfo& s : subs) {
      w.StartObject();
      KV(w, "subresource", s.name);
      ResponseKind(w, s.group, s.version, s.kind);
      Strings(w, "verbs", s.verbs);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

void AggregatedGroup(Writer& w, const api::ResourceRegistry& registry, const std::string& group,
                     const std::vector<std::string>& versions) {
  w.StartObject();
  w.Key("metadata");
  w.StartObject();
  KV(w, "name", group);
  w.EndObject();
  w.Key("versions");
  w.StartArray();
  for (const auto& v : versions) {
    w.StartObject();
    KV(w, "version", v);
    w.Key("resources");
    w.StartArray();
    for (const api::ResourceInfo* r : Listed(registry)) {
      if (r->group == group && r->version == v) AggregatedResource(w, *r);
    }
    w.EndArray();
    KV(w, "freshness", "Current");
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string VersionJson(const ServerConfig& config) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  KV(w, "major", config.major);
  KV(w, "minor", config.minor);
  KV(w, "gitVersion", config.git_version);
  KV(w, "gitCommit", "0000000000000000000000000000000000000000");
  KV(w, "gitTreeState", "clean");
  KV(w, "buildDate", "2025-01-01T00:00:00Z");
  KV(w, "goVersion", "go1.24.0");
  KV(w, "compiler", "gc");
  KV(w, "platform", "linux/amd64");
  w.EndObject();
  return Done(buf);
}

std::string ApiVersionsJson(std::string_view server_address) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  KV(w, "kind", "APIVersions");
  Strings(w, "versions", {"v1"});
  w.Key("serverAddressByClientCIDRs");
  w.StartArray();
  w.StartObject();
  KV(w, "clientCIDR", "0.0.0.0/0");
  KV(w, "serverAddress", server_address);
  w.EndObject();
  w.EndArray();
  w.EndObject();
  return Done(buf);
}

std::string ApiGroupListJson(const api::ResourceRegistry& registry) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  KV(w, "kind", "APIGroupList");
  KV(w, "apiVersion", "v1");
  w.Key("groups");
  w.StartArray();
  for (const auto& [group, versions] : Groups(registry, false)) WriteGroup(w, group, versions);
  w.EndArray();
  w.EndObject();
  return Done(buf);
}

std::string ApiGroupJson(const api::ResourceRegistry& registry, std::string_view group) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  for (const auto& [name, versions] : Groups(registry, false)) {
    if (name != group) continue;
    w.StartObject();
    KV(w, "kind", "APIGroup");
    KV(w, "apiVersion", "v1");
    WriteGroupMembers(w, name, versions);
    w.EndObject();
  }
  return Done(buf);
}

std::string ApiResourceListJson(const api::ResourceRegistry& registry, std::string_view group,
                                std::string_view version) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  KV(w, "kind", "APIResourceList");
  KV(w, "apiVersion", "v1");
  KV(w, "groupVersion", GroupVersion(group, version));
  w.Key("resources");
  w.StartArray();
  for (const api::ResourceInfo* r : Listed(registry)) {
    if (r->group == group && r->version == version) LegacyResource(w, *r);
  }
  w.EndArray();
  w.EndObject();
  return Done(buf);
}

std::string AggregatedDiscoveryJson(const api::ResourceRegistry& registry, bool core,
                                    std::string_view version) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  KV(w, "kind", "APIGroupDiscoveryList");
  KV(w, "apiVersion", "apidiscovery.k8s.io/" + std::string(version));
  w.Key("metadata");
  w.StartObject();
  w.EndObject();
  w.Key("items");
  w.StartArray();
  for (const auto& [group, versions] : Groups(registry, core)) {
    AggregatedGroup(w, registry, group, versions);
  }
  w.EndArray();
  w.EndObject();
  return Done(buf);
}

std::string AggregatedDiscoveryContentType(std::string_view version) {
  return "application/json;g=apidiscovery.k8s.io;v=" + std::string(version) +
         ";as=APIGroupDiscoveryList";
}

std::string RootPathsJson(const api::ResourceRegistry& registry) {
  std::vector<std::string> paths = {"/api", "/api/v1", "/apis"};
  for (const auto& [group, versions] : Groups(registry, false)) {
    paths.push_back("/apis/" + group);
    for (const auto& v : versions) paths.push_back("/apis/" + group + "/" + v);
  }
  for (const char* p : {"/healthz", "/livez", "/metrics", "/openapi/v3", "/readyz", "/version"}) {
    paths.push_back(p);
  }
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  Strings(w, "paths", paths);
  w.EndObject();
  return Done(buf);
}

}  // namespace allot::apiserver
