// What the request handlers share: the store, the clock, metrics, caches and bookkeeping of
// asynchronous work; and Call, one request on its way through the handlers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "api/machinery/resources.h"
#include "apiserver/admission/rbac_escalation.h"
#include "apiserver/admission/restriction.h"
#include "apiserver/audit/audit_log.h"
#include "apiserver/authn/authenticator.h"
#include "apiserver/authz/authorizer.h"
#include "apiserver/authz/impersonation.h"
#include "apiserver/authz/rbac_authorizer.h"
#include "apiserver/encoding/encode_cache.h"
#include "apiserver/encoding/status_json.h"
#include "apiserver/rest/router.h"
#include "apiserver/server_metrics.h"
#include "apiserver/transport/http_types.h"
#include "common/time.h"
#include "store/store.h"

namespace allot::apiserver {

class StreamRegistry;
class OpenApiDocs;

// Runs a task on some io thread. Store completions are handed over with it so that encoding
// responses never happens on the store's committer thread.
using Executor = std::function<void(std::function<void()>)>;

struct ServerConfig {
  // Who requests come from (apiserver/authn/); null: not asked (every request is served).
  std::shared_ptr<const authn::Authenticator> authenticator;
  // Whether they may do what they ask (apiserver/authz/); null: everything is allowed. Node
  // and driver identities are restricted to their own objects only when it is set.
  std::shared_ptr<const authz::Authorizer> authorizer;
  // The RBAC part of it, for SelfSubjectRulesReview; null: rules reviews say "incomplete".
  std::shared_ptr<const authz::RbacAuthorizer> rbac;
  // Where every answered request is logged (apiserver/audit/); null: nowhere.
  std::shared_ptr<audit::AuditLog> audit;
  // kube-apiserver's --max-requests-inflight / --max-mutating-requests-inflight: requests
  // beyond these in flight get 429 with Retry-After; watches and health probes do not count.
  // 0: no limit.
  int max_readonly_inflight = 0;
  int max_mutating_inflight = 0;
  std::string git_version = "v1.37.0-allot";
  std::string major = "1";
  std::string minor = "37";
  std::chrono::milliseconds bookmark_interval{1000};
  // Null: completions run where the store calls them (tests of the handler alone).
  Executor executor;
};

// Counts requests (Calls) still alive, so that shutdown can wait for the store to complete
// their writes (a completion posts to a connection whose io_context must still exist, and
// touches the server's metrics).
class AsyncTracker {
 public:
  void Begin();
  // Must be the last thing the caller does with anything the server owns.
  void End();
  // Blocks until every Begin() has been matched by End().
  void WaitIdle();

 private:
  std::mutex mu_;
  int64_t pending_ = 0;  // guarded by mu_
  std::condition_variable cv_;
};

struct ServerContext {
  store::Store& store;
  Clock& clock;
  const api::ResourceRegistry& registry;
  ServerMetrics& metrics;
  EncodeCache& cache;
  StreamRegistry& streams;
  AsyncTracker& async;
  OpenApiDocs& openapi;
  const ServerConfig& config;
};

// One request. Handlers keep it in a shared_ptr while store writes are in flight; Reply() may
// be called from any thread, exactly once.
class Call : public std::enable_shared_from_this<Call> {
 public:
  Call(ServerContext& ctx, Request req, Route route, ResponseCallback done);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  ServerContext& ctx;
  const Request req;
  const Route route;
  // Whom the request is served as: the authenticated user (system:anonymous when the server
  // authenticates nobody), or the user it impersonates.
  authn::UserInfo user;
  // Set when it impersonates: who authenticated (the audit log records both).
  std::optional<authz::Impersonation> impersonation;
  // What the request asks to do, as authorization saw it (filled when the server authorizes
  // or audits requests).
  std::optional<authz::Attributes> attributes;
  // Set for node and driver identities: writes are checked against it (Admit).
  std::optional<admission::Restriction> restriction;
  // Set for writes of roles and bindings under RBAC: what they grant is checked (Admit).
  std::optional<admission::RbacEscalationGuard> escalation;

  // The verdict of the restriction and the escalation guard on writing `obj` over `old`
  // (either may be null); OK when neither applies.
  Status Admit(const api::Object* old, const api::Object* obj) const;
  // `fn`, followed by Admit(current, result) when either applies: the update checked inside the
  // store's compare-and-swap, against the object it replaces.
  store::UpdateFn Admitted(store::UpdateFn fn) const;

  // The resource as stored: what the store, strategies and admission see.
  const api::ResourceInfo& resource() const { return *route.resource; }
  // The resource as the request's version names it (a served version's view, else resource()):
  // what lists, watches and tables say, and their columns.
  const api::ResourceInfo& view() const {
    return route.served ? route.served->view : *route.resource;
  }
  // The encodings of answers in the request's version.
  EncodeCache& cache() const { return ctx.cache.For(route.served); }
  // The metrics verb: GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE, DELETECOLLECTION.
  void set_verb(std::string verb) { verb_ = std::move(verb); }
  const std::string& verb() const { return verb_; }
  // Long-running requests (watches) are not recorded in the latency histogram.
  void set_long_running() { long_running_ = true; }
  // Mutating requests count under request_kind="mutating".
  void set_mutating();

  void Reply(Response res);
  void Fail(const Status& status) { Reply(ErrorResponse(status)); }

  // Wraps a store completion callback: records the write latency under `operation`, then runs
  // `fn` on an io thread (config.executor), keeping the Call alive until it ran; exceptions
  // become a 500 reply.
  template <class T>
  std::function<void(T)> Track(const char* operation, std::function<void(T)> fn);

 private:
  void RecordStoreLatency(const char* operation, std::chrono::steady_clock::time_point start);

  ResponseCallback done_;
  std::string verb_ = "GET";
  bool long_running_ = false;
  bool mutating_ = false;
  std::atomic<bool> replied_{false};
  const std::chrono::steady_clock::time_point start_;
  Time received_{};  // for the audit log
};
using CallPtr = std::shared_ptr<Call>;

template <class T>
std::function<void(T)> Call::Track(const char* operation, std::function<void(T)> fn) {
  auto start = std::chrono::steady_clock::now();
  return [self = shared_from_this(), operation, start, fn = std::move(fn)](T result) {
    self->RecordStoreLatency(operation, start);
    auto shared = std::make_shared<T>(std::move(result));
    auto run = [self, fn, shared] {
      try {
        fn(std::move(*shared));
      } catch (const std::exception& e) {
        self->Fail(InternalError(std::string("internal error: ") + e.what()));
      }
    };
    const Executor& executor = self->ctx.config.executor;
    if (executor) {
      executor(std::move(run));
    } else {
      run();
    }
  };
}

}  // namespace allot::apiserver
