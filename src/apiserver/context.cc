#include "apiserver/context.h"

namespace allot::apiserver {

void AsyncTracker::Begin() {
  std::lock_guard<std::mutex> lock(mu_);
  ++pending_;
}

void AsyncTracker::End() {
  // Decrement and notify under the lock: WaitIdle cannot return (and the tracker cannot be
  // destroyed) before this critical section is over.
  std::lock_guard<std::mutex> lock(mu_);
  if (--pending_ == 0) cv_.notify_all();
}

void AsyncTracker::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return pending_ <= 0; });
}

Call::Call(ServerContext& c, Request r, Route rt, ResponseCallback done)
    : ctx(c),
      req(std::move(r)),
      route(std::move(rt)),
      done_(std::move(done)),
      start_(std::chrono::steady_clock::now()) {
  if (ctx.config.audit) received_ = ctx.clock.Now();
  ctx.async.Begin();
  ctx.metrics.inflight.With({"readOnly"}).Inc();
}

Call::~Call() {
  ctx.metrics.inflight.With({mutating_ ? "mutating" : "readOnly"}).Dec();
  if (!replied_.load()) {
    // A handler lost track of the request: answer rather than leave the client hanging.
    Reply(ErrorResponse(InternalError("internal error: the request was not answered")));
  }
  ctx.async.End();  // last: the server may be destroyed right after
}

void Call::set_mutating() {
  if (mutating_) return;
  mutating_ = true;
  ctx.metrics.inflight.With({"readOnly"}).Dec();
  ctx.metrics.inflight.With({"mutating"}).Inc();
}

void Call::RecordStoreLatency(const char* operation, std::chrono::steady_clock::time_point start) {
  std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
  ctx.metrics.store_write_duration.With({operation}).Observe(d.count());
}

void Call::Reply(Response res) {
  if (replied_.exchange(true)) return;
  const std::string resource = route.resource ? route.resource->resource : "";
  ctx.metrics.requests.With({std::to_string(res.status), resource, route.subresource, verb_}).Inc();
  if (!long_running_) {
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
    ctx.metrics.request_duration.With({resource, route.subresource, verb_}).Observe(d.count());
  }
  if (!res.stream && res.content_type.rfind("application/json", 0) == 0) {
    auto pretty = req.Query("pretty");
    if (pretty && (*pretty == "true" || *pretty == "1")) res.body = PrettyJson(res.body);
  }
  if (ctx.config.audit && attributes) {
    ctx.config.audit->Record(*attributes, impersonation ? &*impersonation : nullptr, req.target,
                             req.remote, res.status, received_);
  }
  ResponseCallback done = std::move(done_);
  done_ = nullptr;
  if (done) done(std::move(res));
}

Status Call::Admit(const api::Object* old, const api::Object* obj) const {
  if (restriction) ALLOT_RETURN_IF_ERROR(restriction->CheckWrite(*attributes, old, obj));
  if (escalation && obj) ALLOT_RETURN_IF_ERROR(escalation->CheckWrite(old, *obj));
  return Status::Ok();
}

store::UpdateFn Call::Admitted(store::UpdateFn fn) const {
  if (!restriction && !escalation) return fn;
  return [self = shared_from_this(),
          fn = std::move(fn)](const api::Object& current) -> Result<std::unique_ptr<api::Object>> {
    ALLOT_ASSIGN_OR_RETURN(std::unique_ptr<api::Object> next, fn(current));
    // A write based on an older object is the store's 409 (which clients retry), not a verdict
    // on the difference from a newer one.
    const std::string& rv = next->metadata.resourceVersion;
    if (!rv.empty() && rv != current.metadata.resourceVersion) {
      return ConflictError(self->resource().QualifiedResource(), current.metadata.name,
                           "the object has been modified; please apply your changes to the "
                           "latest version and try again");
    }
    ALLOT_RETURN_IF_ERROR(self->Admit(&current, next.get()));
    return next;
  };
}

}  // namespace allot::apiserver
