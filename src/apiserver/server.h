// The Kubernetes-compatible HTTP API server.
//
//   store::Store store(store::NewMemoryBackend(), clock);
//   ALLOT_RETURN_IF_ERROR(store.Open());
//   apiserver::ApiServer server(store, clock, {.listen_address = "127.0.0.1:6443"});
//   ALLOT_RETURN_IF_ERROR(server.Start());
//   ... kubectl --server http://127.0.0.1:<server.port()> ...
//   server.Stop();
//
// HTTP/1.1 over Boost.Asio/Beast with keep-alive; `threads` io threads serve every connection.
// Watches hold no thread: a store Watcher wakes its connection's strand when events arrive.
// Store writes are asynchronous, so io threads never wait for a durable commit.
//
// Thread safety: Start/Stop/port are for the owning thread; everything else is internal.
// The store and clock must outlive the server.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "apiserver/audit/audit_log.h"
#include "apiserver/authn/authenticator.h"
#include "common/metrics.h"
#include "common/status.h"
#include "common/time.h"
#include "store/store.h"

namespace allot::apiserver {

// Serving over TLS (PEM). With a client CA, a client certificate signed by it identifies the
// client (CN = user, O = groups); a certificate it did not sign fails the handshake; clients
// without one may still connect (and authenticate otherwise).
struct ApiServerTls {
  std::string cert_pem;  // the serving certificate (then any intermediates)
  std::string key_pem;
  std::string client_ca_pem;  // "" : client certificates are not asked for
};

// kube-apiserver's --authorization-mode: AlwaysAllow, or RBAC (after the group system:masters,
// which may do anything), with node and driver identities restricted to their own objects
// (apiserver/authz/, apiserver/admission/restriction.h).
enum class Authorization { kAlwaysAllow, kRbac };

struct ApiServerOptions {
  // "host:port"; port 0 picks a free port (see port()).
  std::string listen_address = "127.0.0.1:0";
  // TLS; absent: plain HTTP.
  std::optional<ApiServerTls> tls;
  // Who requests come from (apiserver/authn/authenticator.h); null: nobody is asked and every
  // request is served (tests, local experiments on loopback).
  std::shared_ptr<const authn::Authenticator> authenticator;
  Authorization authorization = Authorization::kAlwaysAllow;
  // Every answered request is logged here (apiserver/audit/audit_log.h); null: not logged.
  std::shared_ptr<audit::AuditLog> audit_log;
  int threads = 2;
  // Requests in flight beyond these are answered 429 with Retry-After (watches and health
  // probes do not count); kube-apiserver's --max-requests-inflight (400) and
  // --max-mutating-requests-inflight (200). 0: no limit.
  int max_requests_inflight = 0;
  int max_mutating_requests_inflight = 0;
  // Larger request bodies are refused with 413.
  size_t max_body_bytes = 3 * 1024 * 1024;
  // Idle keep-alive connections are closed after this long.
  std::chrono::seconds idle_timeout{300};
  // A TLS client must finish its handshake within this long, or is dropped (it holds no thread
  // meanwhile).
  std::chrono::milliseconds handshake_timeout{10000};
  // How often a watch with allowWatchBookmarks=true gets a BOOKMARK (on the Clock's timeline).
  std::chrono::milliseconds bookmark_interval{1000};
  // Served in /version.
  std::string git_version = "v1.37.0-allot";
  // Where the server's metrics go (shared with other components); null: a registry of its own.
  metrics::Registry* metrics = nullptr;
};

class ApiServer {
 public:
  ApiServer(store::Store& store, Clock& clock, ApiServerOptions options = {});
  ~ApiServer();  // Stop()s
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Binds and starts serving. Errors: the address does not parse or cannot be bound.
  Status Start();
  // The bound port (after Start).
  uint16_t port() const;
  // Stops accepting, ends open watches, waits for in-flight requests, joins the io threads.
  // Idempotent.
  void Stop();

  metrics::Registry& metrics();
  // Makes every open watch re-check its deadlines (timeoutSeconds, bookmarks) against the
  // Clock now: tests advance a FakeClock and call this instead of sleeping.
  void WakeStreams();
  size_t open_watches() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace allot::apiserver
