#include "client/http_client.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>

#include "api/codec/codec.h"
#include "api/core/pod.h"
#include "api/patch/patch.h"
#include "api/protobuf.h"
#include "client/http_watch.h"

namespace allot::client {

namespace {

using JsonOut = rapidjson::Writer<rapidjson::StringBuffer>;

bool IsSuccess(int code) { return code >= 200 && code < 300; }

uint64_t ParseRv(std::string_view s) {
  uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

void Key(JsonOut& w, const char* key, std::string_view value) {
  w.Key(key);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

constexpr std::string_view kProtobufFirst = "application/vnd.kubernetes.protobuf, application/json";

bool IsProtobuf(const HttpResponse& res) {
  return res.content_type.starts_with(api::kProtobufContentType);
}

Result<ObjectPtr> DecodeObject(std::string_view body, const ResourceInfo& r) {
  api::DecodeOptions opts;
  opts.expected = r.type;
  ALLOT_ASSIGN_OR_RETURN(api::Decoded d, api::DecodeJson(body, opts));
  return ObjectPtr(std::move(d.object));
}

// The object of a 2xx answer, in the encoding the server chose. A protobuf answer is read
// leniently: subtrees this client keeps as opaque JSON but the server sent with content (a
// server that models more, kube-apiserver for one) are left empty and *dropped is set.
Result<ObjectPtr> DecodeAnswer(const HttpResponse& res, const ResourceInfo& r, bool* dropped) {
  if (!IsProtobuf(res)) return DecodeObject(res.body, r);
  ALLOT_ASSIGN_OR_RETURN(auto obj, api::DecodeProtobufObject(*r.type, res.body, dropped));
  return ObjectPtr(std::move(obj));
}

std::string DeleteOptionsJson(const api::DeleteOptions& o) {
  rapidjson::StringBuffer buf;
  JsonOut w(buf);
  w.StartObject();
  Key(w, "kind", "DeleteOptions");
  Key(w, "apiVersion", "v1");
  if (o.precondition_uid || o.precondition_resource_version) {
    w.Key("preconditions");
    w.StartObject();
    if (o.precondition_uid) Key(w, "uid", *o.precondition_uid);
    if (o.precondition_resource_version) {
      Key(w, "resourceVersion", *o.precondition_resource_version);
    }
    w.EndObject();
  }
  if (!o.propagation_policy.empty()) Key(w, "propagationPolicy", o.propagation_policy);
  if (o.grace_period_seconds) {
    w.Key("gracePeriodSeconds");
    w.Int64(*o.grace_period_seconds);
  }
  if (o.dry_run) {
    w.Key("dryRun");
    w.StartArray();
    w.String("All");
    w.EndArray();
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::string BindingJson(std::string_view ns, std::string_view pod, std::string_view uid,
                        std::string_view node, const Annotations& annotations) {
  rapidjson::StringBuffer buf;
  JsonOut w(buf);
  w.StartObject();
  Key(w, "kind", "Binding");
  Key(w, "apiVersion", "v1");
  w.Key("metadata");
  w.StartObject();
  Key(w, "name", pod);
  Key(w, "namespace", ns);
  if (!uid.empty()) Key(w, "uid", uid);
  if (!annotations.empty()) {
    w.Key("annotations");
    w.StartObject();
    for (const auto& [k, v] : annotations) Key(w, k.c_str(), v);
    w.EndObject();
  }
  w.EndObject();
  w.Key("target");
  w.StartObject();
  Key(w, "apiVersion", "v1");
  Key(w, "kind", "Node");
  Key(w, "name", node);
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// A removed object the server answered for with a Status: what its details say.
ObjectPtr StubFromDetails(const ResourceInfo& r, std::string_view ns, std::string_view body) {
  auto obj = r.type->make();
  obj->metadata.namespace_ = r.namespaced ? std::string(ns) : std::string();
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (!doc.HasParseError() && doc.IsObject()) {
    auto d = doc.FindMember("details");
    if (d != doc.MemberEnd() && d->value.IsObject()) {
      auto name = d->value.FindMember("name");
      if (name != d->value.MemberEnd() && name->value.IsString()) {
        obj->metadata.name = name->value.GetString();
      }
      auto uid = d->value.FindMember("uid");
      if (uid != d->value.MemberEnd() && uid->value.IsString()) {
        obj->metadata.uid = uid->value.GetString();
      }
    }
  }
  return ObjectPtr(std::move(obj));
}

Result<api::DeleteResult> DeleteResultFrom(const ResourceInfo& r, std::string_view ns,
                                           const HttpResponse& res) {
  if (!IsSuccess(res.status)) return ErrorFromResponse(res.status, res.body);
  rapidjson::Document doc;
  doc.Parse(res.body.data(), res.body.size());
  api::DeleteResult out;
  bool is_status = false;
  if (doc.IsObject()) {  // MemberEnd() is only defined on objects
    auto kind = doc.FindMember("kind");
    is_status = kind != doc.MemberEnd() && kind->value.IsString() &&
                std::string_view(kind->value.GetString()) == "Status";
  }
  if (is_status && r.type->kind != "Status") {
    out.object = StubFromDetails(r, ns, res.body);
    out.removed = true;
    return out;
  }
  bool dropped = false;  // deletes ask for JSON
  ALLOT_ASSIGN_OR_RETURN(out.object, DecodeAnswer(res, r, &dropped));
  // With finalizers (or a grace period) pending, the object comes back marked for deletion.
  out.removed = res.status != 202 && !out.object->metadata.rare->deletionTimestamp;
  return out;
}

Result<api::ListResult> ProtobufListResult(const ResourceInfo& r, const HttpResponse& res,
                                           bool* dropped) {
  ALLOT_ASSIGN_OR_RETURN(api::ProtobufList list,
                         api::DecodeProtobufList(*r.type, res.body, dropped));
  api::ListResult out;
  out.resource_version = ParseRv(list.meta.resourceVersion);
  out.continue_token = std::move(list.meta.continue_);
  if (list.meta.remainingItemCount) out.remaining_item_count = *list.meta.remainingItemCount;
  out.items.reserve(list.items.size());
  for (auto& item : list.items) out.items.emplace_back(std::move(item));
  return out;
}

Result<api::ListResult> ListResultFrom(const ResourceInfo& r, const HttpResponse& res,
                                       bool* dropped) {
  if (res.status != 200) return ErrorFromResponse(res.status, res.body);
  if (IsProtobuf(res)) return ProtobufListResult(r, res, dropped);
  rapidjson::Document doc;
  doc.Parse(res.body.data(), res.body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return api::JsonParseError(res.body, doc.GetErrorOffset(), "malformed list");
  }
  api::ListResult out;
  auto meta = doc.FindMember("metadata");
  if (meta != doc.MemberEnd() && meta->value.IsObject()) {
    const auto& m = meta->value;
    auto rv = m.FindMember("resourceVersion");
    if (rv != m.MemberEnd() && rv->value.IsString())
      out.resource_version = ParseRv(rv->value.GetString());
    auto cont = m.FindMember("continue");
    if (cont != m.MemberEnd() && cont->value.IsString())
      out.continue_token = cont->value.GetString();
    auto remaining = m.FindMember("remainingItemCount");
    if (remaining != m.MemberEnd() && remaining->value.IsInt64()) {
      out.remaining_item_count = remaining->value.GetInt64();
    }
  }
  auto items = doc.FindMember("items");
  if (items == doc.MemberEnd() || !items->value.IsArray()) return out;  // "items": null
  api::DecodeOptions opts;
  opts.expected = r.type;
  out.items.reserve(items->value.Size());
  for (const auto& item : items->value.GetArray()) {
    ALLOT_ASSIGN_OR_RETURN(api::Decoded d, api::DecodeJsonValue(item, opts));
    out.items.push_back(std::move(d.object));
  }
  return out;
}

// "?a=1&b=2" from the non-empty parameters.
class Query {
 public:
  void Add(std::string_view key, std::string_view value) {
    if (value.empty()) return;
    out_ += out_.empty() ? '?' : '&';
    out_.append(key);
    out_ += '=';
    out_ += QueryEscape(value);
  }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

HttpEndpoint MakeEndpoint(std::string host, uint16_t port, const HttpClientOptions& o) {
  HttpEndpoint ep;
  ep.host = std::move(host);
  ep.port = port;
  ep.bearer_token = o.bearer_token;
  ep.user_agent = o.user_agent;
  ep.connect_timeout = o.connect_timeout;
  ep.request_timeout = o.request_timeout;
  return ep;
}

}  // namespace

Result<std::unique_ptr<HttpClient>> HttpClient::FromUrl(std::string_view url,
                                                        HttpClientOptions options) {
  bool https = false;
  std::string_view rest;
  if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else if (url.starts_with("https://")) {
    rest = url.substr(8);
    https = true;
  } else {
    return BadRequestError("unsupported server URL \"" + std::string(url) +
                           "\": expected http://host:port or https://host:port");
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.empty() || rest.find('/') != std::string_view::npos) {
    return BadRequestError("malformed server URL \"" + std::string(url) + "\"");
  }
  uint16_t port = https ? 443 : 80;
  std::string_view host = rest;
  size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos && rest.find(']', colon) == std::string_view::npos) {
    host = rest.substr(0, colon);
    std::string_view p = rest.substr(colon + 1);
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (ec != std::errc() || end != p.data() + p.size() || p.empty()) {
      return BadRequestError("malformed port in server URL \"" + std::string(url) + "\"");
    }
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  HttpEndpoint ep = MakeEndpoint(std::string(host), port, options);
  if (https) {
    ALLOT_ASSIGN_OR_RETURN(
        ep.tls, MakeClientTlsContext(options.tls.ca_pem, options.tls.cert_pem, options.tls.key_pem,
                                     options.tls.insecure_skip_verify));
    if (!options.tls.insecure_skip_verify) {
      ep.tls_server_name = options.tls.server_name.empty() ? ep.host : options.tls.server_name;
    }
  }
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(ep), std::move(options)));
}

HttpClient::HttpClient(std::string host, uint16_t port, HttpClientOptions options)
    : options_(std::move(options)),
      pool_(MakeEndpoint(std::move(host), port, options_), options_.workers) {}

HttpClient::HttpClient(HttpEndpoint endpoint, HttpClientOptions options)
    : options_(std::move(options)), pool_(std::move(endpoint), options_.workers) {}

HttpClient::~HttpClient() = default;

std::string HttpClient::CollectionPath(const ResourceInfo& r, std::string_view ns) {
  std::string path = r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
  if (r.namespaced && !ns.empty()) {
    path += "/namespaces/";
    path.append(ns);
  }
  path += "/";
  path += r.resource;
  return path;
}

std::string HttpClient::ItemPath(const ResourceInfo& r, std::string_view ns,
                                 std::string_view name) {
  std::string path = CollectionPath(r, ns);
  path += "/";
  path.append(name);
  return path;
}

Result<HttpResponse> HttpClient::Raw(std::string method, std::string target, std::string body,
                                     std::string content_type) {
  return pool_.Do(
      HttpRequest{std::move(method), std::move(target), std::move(body), std::move(content_type)});
}

Result<ObjectPtr> HttpClient::Get(const ResourceInfo& r, std::string_view ns,
                                  std::string_view name) {
  HttpRequest req{"GET", ItemPath(r, ns, name)};
  if (UseProtobuf(r)) req.accept = kProtobufFirst;
  ALLOT_ASSIGN_OR_RETURN(HttpResponse res, pool_.Do(std::move(req)));
  if (res.status != 200) return ErrorFromResponse(res.status, res.body);
  bool dropped = false;
  auto obj = DecodeAnswer(res, r, &dropped);
  if (!dropped) return obj;
  RefuseProtobuf(r);
  return Get(r, ns, name);  // again, in JSON
}

Result<api::ListResult> HttpClient::List(const ResourceInfo& r, const api::ListOptions& opts) {
  Query q;
  q.Add("labelSelector", opts.label_selector.ToString());
  q.Add("fieldSelector", opts.field_selector.ToString());
  if (opts.limit > 0) q.Add("limit", std::to_string(opts.limit));
  q.Add("continue", opts.continue_token);
  if (opts.resource_version > 0 && opts.continue_token.empty()) {
    q.Add("resourceVersion", std::to_string(opts.resource_version));
    q.Add("resourceVersionMatch", "Exact");
  }
  HttpRequest req{"GET", CollectionPath(r, opts.namespace_) + q.str()};
  if (UseProtobuf(r)) req.accept = kProtobufFirst;
  ALLOT_ASSIGN_OR_RETURN(HttpResponse res, pool_.Do(std::move(req)));
  bool dropped = false;
  auto list = ListResultFrom(r, res, &dropped);
  if (!dropped) return list;
  RefuseProtobuf(r);
  return List(r, opts);  // again, in JSON
}

Result<std::unique_ptr<api::Watcher>> HttpClient::Watch(const ResourceInfo& r,
                                                        const api::WatchOptions& opts) {
  Query q;
  q.Add("watch", "true");
  q.Add("allowWatchBookmarks", "true");
  q.Add("labelSelector", opts.label_selector.ToString());
  q.Add("fieldSelector", opts.field_selector.ToString());
  if (opts.resource_version > 0) {
    q.Add("resourceVersion", std::to_string(opts.resource_version));
  } else if (!opts.send_initial_events) {
    q.Add("sendInitialEvents", "false");
    q.Add("resourceVersionMatch", "NotOlderThan");
  }
  HttpWatchOptions wo;
  wo.max_queue = opts.max_queue;
  if (options_.watch_timeout.count() > 0) {
    q.Add("timeoutSeconds", std::to_string(options_.watch_timeout.count()));
    wo.idle_timeout = options_.watch_timeout + std::chrono::minutes(1);
  }
  wo.protobuf = UseProtobuf(r);
  wo.on_protobuf_refused = [json_only = json_only_, &r] { json_only->Add(r); };
  return OpenHttpWatch(pool_.endpoint(), CollectionPath(r, opts.namespace_) + q.str(), r, wo);
}

bool HttpClient::UseProtobuf(const ResourceInfo& r) const {
  if (!options_.protobuf || !api::HasProtobuf(*r.type)) return false;
  std::lock_guard<std::mutex> lock(json_only_->mu);
  const auto& refused = json_only_->resources;
  return std::find(refused.begin(), refused.end(), &r) == refused.end();
}

void HttpClient::RefuseProtobuf(const ResourceInfo& r) { json_only_->Add(r); }

void HttpClient::JsonOnly::Add(const ResourceInfo& r) {
  std::lock_guard<std::mutex> lock(mu);
  if (std::find(resources.begin(), resources.end(), &r) == resources.end()) {
    resources.push_back(&r);
  }
}

HttpRequest HttpClient::WriteRequest(std::string method, std::string target, const ResourceInfo& r,
                                     const Object& obj) const {
  HttpRequest req{std::move(method), std::move(target)};
  if (UseProtobuf(r)) {
    std::string message;
    if (api::EncodeProtobufMessage(obj, message)) {
      api::AppendProtobufEnvelope(*r.type, message, req.body);
      req.content_type = api::kProtobufContentType;
      req.accept = kProtobufFirst;
      return req;
    }
  }
  req.body = api::EncodeJson(obj);
  return req;
}

void HttpClient::Send(HttpRequest req, std::function<void(Result<HttpResponse>)> done) {
  pool_.Submit(std::move(req), std::move(done));
}

void HttpClient::SendObject(HttpRequest req, const ResourceInfo& r, Callback<ObjectPtr> done) {
  Send(std::move(req),
       [&r, json_only = json_only_, done = std::move(done)](Result<HttpResponse> res) {
         if (!res.ok()) return done(res.status());
         if (!IsSuccess(res->status)) return done(ErrorFromResponse(res->status, res->body));
         // The write is done: an answer missing a subtree this client cannot read in protobuf is
         // still its result (name, resourceVersion); later requests for the kind are JSON.
         bool dropped = false;
         auto obj = DecodeAnswer(*res, r, &dropped);
         if (dropped) json_only->Add(r);
         done(std::move(obj));
       });
}

void HttpClient::CreateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                             Callback<ObjectPtr> done) {
  const std::string& ns = obj->metadata.namespace_;
  if (r.namespaced && ns.empty()) {
    return done(BadRequestError("the namespace of the provided object is empty"));
  }
  SendObject(WriteRequest("POST", CollectionPath(r, ns), r, *obj), r, std::move(done));
}

void HttpClient::UpdateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                             Callback<ObjectPtr> done) {
  const api::ObjectMeta& m = obj->metadata;
  SendObject(WriteRequest("PUT", ItemPath(r, m.namespace_, m.name), r, *obj), r, std::move(done));
}

void HttpClient::UpdateStatusAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                                   Callback<ObjectPtr> done) {
  const api::ObjectMeta& m = obj->metadata;
  SendObject(WriteRequest("PUT", ItemPath(r, m.namespace_, m.name) + "/status", r, *obj), r,
             std::move(done));
}

void HttpClient::PatchAsync(const ResourceInfo& r, std::string ns, std::string name, PatchKind kind,
                            std::string patch, bool status, Callback<ObjectPtr> done) {
  std::string target = ItemPath(r, ns, name) + (status ? "/status" : "");
  if (kind == PatchKind::kApply) target += "?fieldManager=" + QueryEscape(options_.field_manager);
  std::string content_type(api::ContentTypeOf(ToPatchType(kind)));
  HttpRequest req{"PATCH", std::move(target), std::move(patch), std::move(content_type)};
  if (UseProtobuf(r)) req.accept = kProtobufFirst;
  SendObject(std::move(req), r, std::move(done));
}

void HttpClient::DeleteAsync(const ResourceInfo& r, std::string ns, std::string name,
                             api::DeleteOptions opts, Callback<api::DeleteResult> done) {
  HttpRequest req{"DELETE", ItemPath(r, ns, name), DeleteOptionsJson(opts)};
  Send(std::move(req), [&r, ns, done = std::move(done)](Result<HttpResponse> res) {
    if (!res.ok()) return done(res.status());
    done(DeleteResultFrom(r, ns, *res));
  });
}

void HttpClient::BindAsync(std::string ns, std::string pod, std::string uid, std::string node,
                           Annotations annotations, Callback<bool> done) {
  static const ResourceInfo& pods = api::ResourceFor<api::Pod>();
  HttpRequest req{"POST", ItemPath(pods, ns, pod) + "/binding",
                  BindingJson(ns, pod, uid, node, annotations)};
  Send(std::move(req), [done = std::move(done)](Result<HttpResponse> res) {
    if (!res.ok()) return done(res.status());
    if (!IsSuccess(res->status)) return done(ErrorFromResponse(res->status, res->body));
    done(true);
  });
}

}  // namespace allot::client
