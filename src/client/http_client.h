// The REST Client: Kubernetes HTTP API calls against any compatible server (ours, or a
// kube-apiserver as far as the object types match).
//
//   ALLOT_ASSIGN_OR_RETURN(auto client, client::HttpClient::FromUrl("http://127.0.0.1:6443"));
//   auto pod = client->Get(pods, "default", "p1");
//
// Requests use keep-alive connections: up to `workers` threads, each with one connection, take
// requests from a shared queue, so asynchronous calls from many threads run concurrently
// (callbacks run on those threads). A connection the server closed is reopened. Synchronous
// calls made inside a callback run on that worker's own connection. Each Watch holds a
// connection and a reader thread of its own for as long as it lives.
//
// Wire mapping (URLs from ResourceInfo: /api/v1/... for core, /apis/<group>/<version>/...;
// /namespaces/<ns>/ for namespaced resources):
//   Get GET <item>; List GET <collection>?labelSelector&fieldSelector&limit&continue
//   &resourceVersion(+resourceVersionMatch=Exact); Watch GET <collection>?watch=true
//   &allowWatchBookmarks=true&resourceVersion=N&timeoutSeconds (client/http_watch.h);
//   Create POST <collection>; Update PUT <item>; UpdateStatus PUT <item>/status;
//   Patch PATCH <item>[/status] with the patch type's Content-Type (apply: ?fieldManager=);
//   Delete DELETE <item> with a DeleteOptions body; Bind POST pods/<name>/binding.
// Bodies are encoded with api::EncodeJson and decoded with api::DecodeJson (non-strict: unknown
// fields dropped). Errors: the metav1.Status of a non-2xx answer as a Status (code from its
// reason, message, details with causes); kServiceUnavailable / kTimeout for network failures.
// A Delete whose answer is a Status (the object was removed and the server did not return it)
// yields a DeleteResult whose object carries only name, namespace and uid.
//
// https:// verifies the server's certificate against options.tls (its CA, its name) and may
// present a client certificate; connections stay open across requests, so the handshake is
// paid once per connection. A certificate the client does not trust fails with 401. Thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "client/client.h"
#include "client/http_transport.h"

namespace allot::client {

struct HttpClientOptions {
  // Request worker threads = keep-alive connections (started on demand), so the most requests
  // in flight. 16 kept a scheduler's writes to about 10 per store commit over HTTP; 64 raised
  // that to 35-38 and DRA throughput from 1.38k to 1.47k pods/s; 128 measured slower again
  // (docs/performance.md).
  int workers = 64;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds request_timeout{30000};
  // Sent as timeoutSeconds on watches, so the server ends them and the caller (an informer)
  // resumes; 0 sends none. A watch silent for this long plus a minute is dropped as dead.
  std::chrono::seconds watch_timeout{300};
  // "Authorization: Bearer <token>" when set.
  std::string bearer_token;
  // For https:// servers (PEM): the CAs to trust ("" : the system's), the client certificate
  // and its key (both or neither), or no verification of the server at all.
  struct Tls {
    std::string ca_pem;
    std::string cert_pem;
    std::string key_pem;
    bool insecure_skip_verify = false;
    std::string server_name;  // the name the certificate must carry; "" : the URL's host
  };
  Tls tls;
  std::string user_agent = "allot";
  // fieldManager for apply patches (the server requires one).
  std::string field_manager = "allot";
  // Speak Kubernetes' protobuf (api/protobuf.h) for the kinds that have it: bodies of creates
  // and updates, and Accept on reads, writes and watches (protobuf first, JSON as the fallback
  // the server uses for objects protobuf cannot carry). Patch and delete bodies, and other
  // kinds, stay JSON. A kind whose protobuf this client cannot read whole (a server that models
  // more) or whose watch was refused is JSON from then on.
  bool protobuf = true;
};

class HttpClient final : public Client {
 public:
  // `url` is "http://host[:port]" or "https://host[:port]" (a trailing "/" is allowed; default
  // ports 80 and 443). Errors: 400 for other forms, for TLS material that does not load.
  static Result<std::unique_ptr<HttpClient>> FromUrl(std::string_view url,
                                                     HttpClientOptions options = {});
  // Plain HTTP. Does not connect until the first request.
  HttpClient(std::string host, uint16_t port, HttpClientOptions options = {});
  ~HttpClient() override;

  Result<ObjectPtr> Get(const ResourceInfo& r, std::string_view ns, std::string_view name) override;
  Result<api::ListResult> List(const ResourceInfo& r, const api::ListOptions& opts) override;
  Result<std::unique_ptr<api::Watcher>> Watch(const ResourceInfo& r,
                                              const api::WatchOptions& opts) override;

  void CreateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                   Callback<ObjectPtr> done) override;
  void UpdateAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                   Callback<ObjectPtr> done) override;
  void UpdateStatusAsync(const ResourceInfo& r, std::unique_ptr<Object> obj,
                         Callback<ObjectPtr> done) override;
  void PatchAsync(const ResourceInfo& r, std::string ns, std::string name, PatchKind kind,
                  std::string patch, bool status, Callback<ObjectPtr> done) override;
  void DeleteAsync(const ResourceInfo& r, std::string ns, std::string name, api::DeleteOptions opts,
                   Callback<api::DeleteResult> done) override;
  void BindAsync(std::string ns, std::string pod, std::string uid, std::string node,
                 Annotations annotations, Callback<bool> done) override;

  // Any other request (e.g. GET /version, /healthz): the raw answer, whatever its code.
  Result<HttpResponse> Raw(std::string method, std::string target, std::string body = {},
                           std::string content_type = {});

  // "/api/v1/namespaces/<ns>/pods" / "/apis/<group>/<version>/<resource>" (ns ignored for
  // cluster-scoped resources; empty ns: all namespaces).
  static std::string CollectionPath(const ResourceInfo& r, std::string_view ns);
  // CollectionPath + "/<name>".
  static std::string ItemPath(const ResourceInfo& r, std::string_view ns, std::string_view name);

 private:
  void Send(HttpRequest req, std::function<void(Result<HttpResponse>)> done);
  // Sends `req` and decodes the object of a 2xx answer.
  void SendObject(HttpRequest req, const ResourceInfo& r, Callback<ObjectPtr> done);

  HttpClient(HttpEndpoint endpoint, HttpClientOptions options);
  // Whether requests for `r` speak protobuf: options_.protobuf, the kind has a message, and no
  // watch of it has been refused for an object protobuf cannot carry.
  bool UseProtobuf(const ResourceInfo& r) const;
  // From now on, requests for `r` are JSON (the server sent what this client cannot read in
  // protobuf, or refused to go on in it).
  void RefuseProtobuf(const ResourceInfo& r);
  // A POST or PUT of `obj`: protobuf when UseProtobuf and the object allows, else JSON.
  HttpRequest WriteRequest(std::string method, std::string target, const ResourceInfo& r,
                           const Object& obj) const;

  const HttpClientOptions options_;
  HttpPool pool_;
  // Resources whose watches met an object protobuf cannot carry: JSON from then on.
  struct JsonOnly {
    void Add(const ResourceInfo& r);
    std::mutex mu;
    std::vector<const ResourceInfo*> resources;  // guarded by mu
  };
  const std::shared_ptr<JsonOnly> json_only_ = std::make_shared<JsonOnly>();
};

}  // namespace allot::client
