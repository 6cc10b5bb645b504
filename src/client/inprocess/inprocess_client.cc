#include "client/inprocess/inprocess_client.h"

#include "api/codec/codec.h"
#include "api/codec/yaml.h"
#include "api/patch/patch.h"
#include "registry/pod_binding.h"

namespace allot::client {

namespace {

// The patched object (unknown fields dropped, as the server's default field validation does).
Result<std::unique_ptr<Object>> ApplyTo(const Object& current, api::PatchType type,
                                        const std::string& patch) {
  const api::TypeInfo& t = current.type();
  ALLOT_ASSIGN_OR_RETURN(std::string patched,
                         api::ApplyPatch(type, api::EncodeJson(current), patch, t.schema()));
  api::DecodeOptions opts;
  opts.expected = &t;
  ALLOT_ASSIGN_OR_RETURN(api::Decoded d, api::DecodeJson(patched, opts));
  return std::move(d.object);
}

Result<std::string> ApplyBodyJson(const std::string& body) {
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && body[first] == '{') return body;
  return api::YamlDocumentToJson(body);
}

}  // namespace

Result<ObjectPtr> InProcessClient::Get(const ResourceInfo& r, std::string_view ns,
                                       std::string_view name) {
  return store_.Get(r, ns, name);
}

Result<api::ListResult> InProcessClient::List(const ResourceInfo& r, const api::ListOptions& opts) {
  return store_.List(r, opts);
}

Result<std::unique_ptr<api::Watcher>> InProcessClient::Watch(const ResourceInfo& r,
                                                             const api::WatchOptions& opts) {
  return store_.Watch(&r, opts);
}

void InProcessClient::CreateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                                  Callback<ObjectPtr> done) {
  store_.CreateAsync(r, std::move(obj), {}, std::move(done));
}

void InProcessClient::Put(const ResourceInfo& r, std::unique_ptr<Object> obj,
                          store::Subresource sub, Callback<ObjectPtr> done) {
  std::string ns = r.namespaced ? obj->metadata.namespace_.str() : std::string();
  std::string name = obj->metadata.name;
  std::shared_ptr<const Object> desired = std::move(obj);
  store::UpdateFn fn = [desired](const Object&) -> Result<std::unique_ptr<Object>> {
    return desired->Clone();
  };
  store::UpdateOptions opts;
  opts.subresource = sub;
  store_.UpdateAsync(r, std::move(ns), std::move(name), std::move(fn), std::move(opts),
                     std::move(done));
}

void InProcessClient::UpdateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                                  Callback<ObjectPtr> done) {
  Put(r, std::move(obj), store::Subresource::kMain, std::move(done));
}

void InProcessClient::UpdateStatusAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                                        Callback<ObjectPtr> done) {
  Put(r, std::move(obj), store::Subresource::kStatus, std::move(done));
}

void InProcessClient::ApplyCreate(const ResourceInfo& r, const std::string& ns,
                                  const std::string& name, const std::string& body,
                                  Callback<ObjectPtr> done) {
  auto json = ApplyBodyJson(body);
  if (!json.ok()) return done(json.status());
  api::DecodeOptions opts;
  opts.expected = r.type;
  auto decoded = api::DecodeJson(*json, opts);
  if (!decoded.ok()) return done(decoded.status());
  api::ObjectMeta& meta = decoded->object->metadata;
  if (meta.name.empty()) meta.name = name;
  if (r.namespaced && meta.namespace_.empty()) meta.namespace_ = ns;
  if (meta.name != name || (r.namespaced && meta.namespace_ != ns)) {
    return done(BadRequestError("the name or namespace of the applied object (" + meta.name +
                                ") does not match the request (" + name + ")"));
  }
  store_.CreateAsync(r, std::move(decoded->object), {}, std::move(done));
}

void InProcessClient::PatchAsync(const ResourceInfo& r, std::string ns, std::string name,
                                 PatchKind kind, std::string patch, bool status,
                                 Callback<ObjectPtr> done) {
  auto current = store_.Get(r, ns, name);
  if (!current.ok()) {
    if (kind == PatchKind::kApply && !status && current.status().code() == StatusCode::kNotFound) {
      return ApplyCreate(r, ns, name, patch, std::move(done));
    }
    return done(current.status());
  }
  const api::PatchType type = ToPatchType(kind);
  // Patch on the caller's thread; the committer re-patches only if the object moved on.
  auto first = ApplyTo(**current, type, patch);
  if (!first.ok()) return done(first.status());
  std::shared_ptr<const Object> precomputed = std::move(first).value();
  auto body = std::make_shared<const std::string>(std::move(patch));
  std::string base_rv = (*current)->metadata.resourceVersion;
  store::UpdateFn fn = [precomputed, base_rv, type,
                        body](const Object& cur) -> Result<std::unique_ptr<Object>> {
    if (cur.metadata.resourceVersion == base_rv) return precomputed->Clone();
    return ApplyTo(cur, type, *body);
  };
  store::UpdateOptions opts;
  opts.subresource = status ? store::Subresource::kStatus : store::Subresource::kMain;
  store_.UpdateAsync(r, std::move(ns), std::move(name), std::move(fn), std::move(opts),
                     std::move(done));
}

void InProcessClient::DeleteAsync(const ResourceInfo& r, std::string ns, std::string name,
                                  api::DeleteOptions opts, Callback<api::DeleteResult> done) {
  store_.DeleteAsync(r, std::move(ns), std::move(name), std::move(opts), std::move(done));
}

void InProcessClient::BindAsync(std::string ns, std::string pod, std::string uid, std::string node,
                                Annotations annotations, Callback<bool> done) {
  registry::PodBinding b;
  b.namespace_ = std::move(ns);
  b.name = std::move(pod);
  b.uid = std::move(uid);
  b.node = std::move(node);
  b.annotations = std::move(annotations);
  registry::BindPodAsync(store_, std::move(b), clock_, false,
                         [done = std::move(done)](Result<ObjectPtr> r) {
                           if (!r.ok()) return done(r.status());
                           done(true);
                         });
}

}  // namespace allot::client
