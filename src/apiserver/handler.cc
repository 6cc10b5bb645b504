#include "apiserver/handler.h"

#include <atomic>
#include <exception>

#include "apiserver/authz/impersonation.h"
#include "apiserver/dashboard/page.h"
#include "apiserver/discovery/discovery.h"
#include "apiserver/discovery/openapi.h"
#include "apiserver/rest/handlers.h"
#include "apiserver/rest/request_params.h"
#include "apiserver/rest/watch_stream.h"
#include "apiserver/transport/inflight.h"
#include "common/log.h"

namespace allot::apiserver {

struct Handler::State {
  State(store::Store& store, Clock& clock, metrics::Registry& registry, ServerConfig cfg)
      : config(std::move(cfg)),
        metrics_registry(registry),
        metrics(registry, store),
        openapi(api::ResourceRegistry::Default(), config.git_version),
        inflight(config.max_readonly_inflight, config.max_mutating_inflight),
        ctx{store,   clock, api::ResourceRegistry::Default(), metrics, cache, streams, async,
            openapi, config} {}

  const ServerConfig config;
  metrics::Registry& metrics_registry;
  ServerMetrics metrics;
  EncodeCache cache;
  StreamRegistry streams;
  AsyncTracker async;
  OpenApiDocs openapi;
  InFlightLimits inflight;
  ServerContext ctx;
  std::atomic<bool> stopping{false};
};

namespace {

Response TextResponse(int code, std::string content_type, std::string body) {
  Response r;
  r.status = code;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

bool IsRead(const Request& req) { return req.method == "GET" || req.method == "HEAD"; }

void ServeDiscovery(const CallPtr& call, bool core, const std::string& server_address) {
  const api::ResourceRegistry& registry = call->ctx.registry;
  std::string aggregated = AggregatedDiscoveryVersion(call->req);
  if (!aggregated.empty()) {
    Response r = JsonResponse(200, AggregatedDiscoveryJson(registry, core, aggregated));
    r.content_type = AggregatedDiscoveryContentType(aggregated);
    r.headers.emplace_back("Vary", "Accept");
    call->Reply(std::move(r));
    return;
  }
  Response r =
      JsonResponse(200, core ? ApiVersionsJson(server_address) : ApiGroupListJson(registry));
  r.headers.emplace_back("Vary", "Accept");
  call->Reply(std::move(r));
}

void ServeOpenApi(const CallPtr& call) {
  OpenApiDocs& docs = call->ctx.openapi;
  if (call->route.kind == RouteKind::kOpenApiV2) {
    // Protobuf for clients that name it (client-go always does), else JSON.
    const OpenApiV2& v2 = docs.V2();
    if (call->req.Header("Accept").find("protobuf") != std::string_view::npos) {
      Response r = JsonResponse(200, v2.protobuf);
      r.content_type = std::string(kOpenApiV2ProtobufType);
      return call->Reply(std::move(r));
    }
    return call->Reply(JsonResponse(200, v2.json));
  }
  if (call->route.kind == RouteKind::kOpenApiV3Index) {
    call->Reply(JsonResponse(200, docs.Index()));
    return;
  }
  const std::string* doc = docs.Document(call->route.group, call->route.version);
  if (!doc) {
    call->Fail(NotFoundPathError());
    return;
  }
  call->Reply(JsonResponse(200, *doc));
}

void ServeNonResource(const CallPtr& call, const std::string& server_address,
                      metrics::Registry& registry) {
  if (call->route.kind == RouteKind::kNotFound) {
    return call->Fail(NotFoundPathError());
  }
  if (!IsRead(call->req)) {
    call->Fail(MethodNotAllowedError());
    return;
  }
  const Route& route = call->route;
  const ServerContext& ctx = call->ctx;
  switch (route.kind) {
    case RouteKind::kRoot:
      return call->Reply(JsonResponse(200, RootPathsJson(ctx.registry)));
    case RouteKind::kVersion:
      return call->Reply(JsonResponse(200, VersionJson(ctx.config)));
    case RouteKind::kHealth: {
      // /readyz (and its checks) ask the store: with etcd away the replica is not ready.
      if (call->req.path.rfind("/readyz", 0) == 0) {
        Status ready = ctx.store.Ready();
        if (!ready.ok()) {
          // Anyone may probe: why is for the log, as kube-apiserver withholds it.
          log::Warning("apiserver", "readyz: etcd failed: " + ready.message());
          return call->Reply(TextResponse(500, "text/plain; charset=utf-8",
                                          "[-]etcd failed: reason withheld\nreadyz check failed"));
        }
      }
      return call->Reply(TextResponse(200, "text/plain; charset=utf-8", "ok"));
    }
    case RouteKind::kMetrics:
      return call->Reply(
          TextResponse(200, std::string(metrics::Registry::kContentType), registry.Expose()));
    case RouteKind::kApiVersions:
      return ServeDiscovery(call, true, server_address);
    case RouteKind::kApiGroupList:
      return ServeDiscovery(call, false, server_address);
    case RouteKind::kApiGroup:
      return call->Reply(JsonResponse(200, ApiGroupJson(ctx.registry, route.group)));
    case RouteKind::kResourceList:
      return call->Reply(
          JsonResponse(200, ApiResourceListJson(ctx.registry, route.group, route.version)));
    case RouteKind::kOpenApiV2:
    case RouteKind::kOpenApiV3Index:
    case RouteKind::kOpenApiV3Doc:
      return ServeOpenApi(call);
    case RouteKind::kDashboard: {
      Response r = TextResponse(200, "text/html; charset=utf-8", std::string(DashboardPage()));
      r.headers.emplace_back("Cache-Control", "no-store");
      r.headers.emplace_back("X-Content-Type-Options", "nosniff");
      // Its own inline script and style, requests to this server only, no frames.
      r.headers.emplace_back("Content-Security-Policy",
                             "default-src 'none'; script-src 'unsafe-inline'; style-src "
                             "'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'");
      return call->Reply(std::move(r));
    }
    case RouteKind::kNotFound:
    case RouteKind::kResource:
      break;
  }
  call->Fail(NotFoundPathError());
}

void ServeCollection(const CallPtr& call) {
  const std::string& m = call->req.method;
  const bool all_namespaces = call->resource().namespaced && call->route.namespace_.empty();
  if (m == "GET") return ServeList(call);
  if (all_namespaces) return call->Fail(MethodNotAllowedError());
  if (m == "POST") return ServeCreate(call);
  if (m == "DELETE") return ServeDeleteCollection(call);
  call->Fail(MethodNotAllowedError());
}

void ServeObject(const CallPtr& call) {
  const std::string& m = call->req.method;
  const std::string& sub = call->route.subresource;
  if (sub == "binding" || sub == "eviction") {
    if (m != "POST") return call->Fail(MethodNotAllowedError());
    return sub == "binding" ? ServeBinding(call) : ServeEviction(call);
  }
  if (m == "GET") return ServeGet(call);
  if (m == "PUT") return ServeUpdate(call);
  if (m == "PATCH") return ServePatch(call);
  if (m == "DELETE" && sub.empty()) return ServeDelete(call);
  call->Fail(MethodNotAllowedError());
}

}  // namespace

Handler::Handler(store::Store& store, Clock& clock, metrics::Registry& registry,
                 ServerConfig config)
    : state_(std::make_unique<State>(store, clock, registry, std::move(config))) {}

Handler::~Handler() {
  CancelStreams();
  WaitIdle();
}

namespace {

bool IsMutating(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

// Watches hold their request for minutes: kube-apiserver leaves long-running requests out of
// the in-flight limits.
bool IsLongRunning(const Request& req) {
  return (req.method == "GET" || req.method == "HEAD") && QueryFlag(req, "watch");
}

Status TooManyRequests() {
  Status st(StatusCode::kTooManyRequests, "Too many requests, please try again later.");
  StatusDetails d;
  d.retry_after_seconds = 1;
  st.WithDetails(std::move(d));
  return st;
}

// Answered without authentication or authorization: the health probes (for load balancers, as
// kube-apiserver allows) and the dashboard's page, which holds no cluster data (everything it
// shows comes from API requests it makes as the user: apiserver/dashboard/page.h).
// Only the page's own paths as written: "//ui" or "/%75i" still route to it but need
// credentials.
bool IsPublic(std::string_view path, const Route& route) {
  return authn::Authenticator::IsHealthProbe(path) ||
         (route.kind == RouteKind::kDashboard &&
          (path == kDashboardPath || path == std::string(kDashboardPath) + "/"));
}

// Allows everything: impersonation's authorizer when the server authorizes nothing.
class AllowAll final : public authz::Authorizer {
 public:
  authz::Verdict Authorize(const authz::Attributes&) const override {
    return authz::Verdict{authz::Decision::kAllow, ""};
  }
};

// Serves the call as the user its Impersonate-* headers name, if the requester may act as it
// (authz/impersonation.h); false when the call was answered (400 or 403).
bool Impersonate(Call& call) {
  auto wanted = authz::ImpersonationRequested(call.req);
  if (!wanted.ok() || !*wanted) {
    if (!wanted.ok()) call.Fail(wanted.status());
    return wanted.ok();
  }
  static const AllowAll kAllowAll;
  const ServerConfig& cfg = call.ctx.config;
  const authz::Authorizer& authorizer = cfg.authorizer ? *cfg.authorizer : kAllowAll;
  authz::Attributes request = authz::AttributesOf(call.req, call.route, call.user);
  auto allowed = authz::Impersonate(authorizer, request, **wanted);
  if (!allowed.ok()) {
    if (cfg.audit) call.attributes = std::move(request);  // audited as the requester
    call.Fail(allowed.status());
    return false;
  }
  call.impersonation = authz::Impersonation{std::move(call.user), std::move(allowed->constraint)};
  call.user = std::move(allowed->user);
  return true;
}

// Authorization (authz/authorizer.h), the node and driver restrictions
// (admission/restriction.h) and the RBAC escalation guard (admission/rbac_escalation.h); false
// when the call was answered 403. Also records what the
// request asks for the audit log.
bool Authorize(Call& call) {
  const ServerConfig& cfg = call.ctx.config;
  const bool is_public = IsPublic(call.req.path, call.route);
  if (!is_public && !Impersonate(call)) return false;
  if (!cfg.authorizer && !cfg.audit) return true;
  call.attributes = authz::AttributesOf(call.req, call.route, call.user);
  if (!cfg.authorizer || is_public) return true;
  const authz::Attributes& a = *call.attributes;
  authz::Verdict v = cfg.authorizer->Authorize(a);
  if (v.decision != authz::Decision::kAllow) {
    call.Fail(authz::ForbiddenStatus(a, v.reason));
    return false;
  }
  if (cfg.rbac) call.escalation = admission::RbacEscalationGuard::For(a, *cfg.rbac);
  call.restriction = admission::Restriction::For(call.user);
  if (call.restriction) {
    Status st = call.restriction->CheckRequest(a);
    if (!st.ok()) {
      call.Fail(st);
      return false;
    }
  }
  return true;
}

}  // namespace

void Handler::Handle(Request req, std::string server_address, ResponseCallback done) {
  // The in-flight limits: a slot is taken here and given back when the answer goes out.
  const bool mutating = IsMutating(req.method);
  if (state_->inflight.Limits(mutating) && !IsLongRunning(req) &&
      !authn::Authenticator::IsHealthProbe(req.path)) {
    InFlightLimits& limits = state_->inflight;
    if (!limits.TryAcquire(mutating)) {
      state_->metrics.rejected_inflight.With({mutating ? "mutating" : "readOnly"}).Inc();
      return done(ErrorResponse(TooManyRequests()));
    }
    done = [&limits, mutating, done = std::move(done)](Response res) {
      limits.Release(mutating);
      done(std::move(res));
    };
  }
  Route route = ParseRoute(req.path, state_->ctx.registry);
  const authn::Authenticator* authenticator = state_->ctx.config.authenticator.get();
  Result<authn::UserInfo> user = authn::UserInfo{
      std::string(authn::kAnonymousUser), "", {std::string(authn::kUnauthenticatedGroup)}};
  if (authenticator && !IsPublic(req.path, route)) user = authenticator->Authenticate(req);
  auto call =
      std::make_shared<Call>(state_->ctx, std::move(req), std::move(route), std::move(done));
  // Checked after the Call exists (and is counted by WaitIdle): a request either sees the flag
  // or is waited for by Shutdown().
  if (state_->stopping.load()) {
    return call->Fail(Status(StatusCode::kServiceUnavailable, "the server is shutting down"));
  }
  if (!user.ok()) return call->Fail(user.status());
  call->user = std::move(user).value();
  if (!Authorize(*call)) return;
  try {
    if (authz::Review review = authz::ReviewOf(call->req.path); review != authz::Review::kNone) {
      ServeReview(call, review);
    } else if (call->route.kind != RouteKind::kResource) {
      ServeNonResource(call, server_address, state_->metrics_registry);
    } else if (call->route.collection()) {
      ServeCollection(call);
    } else {
      ServeObject(call);
    }
  } catch (const std::exception& e) {
    call->Fail(InternalError(std::string("internal error: ") + e.what()));
  }
}

void Handler::WakeStreams() { state_->streams.WakeAll(); }
void Handler::CancelStreams() { state_->streams.CancelAll(); }
void Handler::WaitIdle() { state_->async.WaitIdle(); }

void Handler::Shutdown() {
  state_->stopping.store(true);
  CancelStreams();
  WaitIdle();
}
size_t Handler::open_streams() const { return state_->streams.size(); }

}  // namespace allot::apiserver
