// GET of one object, LIST and WATCH.
#include <string>

#include "api/protobuf.h"
#include "apiserver/encoding/output.h"
#include "apiserver/encoding/status_json.h"
#include "apiserver/rest/handlers.h"
#include "apiserver/rest/request_params.h"
#include "apiserver/rest/watch_stream.h"
#include "store/continue_token.h"

namespace allot::apiserver {

namespace {

// A 410 for a continue token whose revision has left the history, as kube-apiserver answers
// it: with a token in metadata.continue that finishes the list from where the expired one
// stopped, at the latest state (so objects changed in between may show up).
Response ExpiredContinueResponse(const std::string& expired) {
  auto point = store::DecodeContinue(expired);
  if (!point.ok()) return ErrorResponse(point.status());
  return ErrorResponse(
      Status(StatusCode::kExpired,
             "The provided continue parameter is too old to display a consistent list result. "
             "You can start a new list without the continue parameter, or use the continue "
             "token in this response to retrieve the remainder of the results. Continuing with "
             "the provided token results in an inconsistent list - objects that were created, "
             "modified, or deleted between the time the first chunk was returned and now may "
             "show up in the list."),
      store::EncodeLatestContinue(point->after));
}


// The store's list resourceVersion for the request (api-reference §4.3): unset or "0" serve
// the latest state; an RV with Exact (or, as Kubernetes does, with a limit) is served exactly;
// NotOlderThan is satisfied by the latest state unless the RV is in the future.
uint64_t ListResourceVersion(const ListParams& p, uint64_t current) {
  if (!p.resource_version || *p.resource_version == 0) return 0;
  const uint64_t rv = *p.resource_version;
  const bool exact =
      p.resource_version_match == "Exact" || (p.resource_version_match.empty() && p.limit > 0);
  if (exact || rv > current) return rv;  // the store answers 504 for a future RV
  return 0;
}

void ServeWatch(const CallPtr& call, ListParams params, Output output) {
  call->set_verb("WATCH");
  call->set_long_running();
  ServerContext& ctx = call->ctx;
  api::WatchOptions opts;
  opts.namespace_ = call->route.namespace_;
  opts.label_selector = std::move(params.label_selector);
  opts.field_selector = std::move(params.field_selector);
  opts.resource_version = params.resource_version.value_or(0);
  if (params.send_initial_events) {
    // Watch-list: the current state (not older than the RV asked for) as ADDED events, then a
    // bookmark marking their end, then changes. Without an RV the state is a consistent read.
    opts.send_initial_events = *params.send_initial_events;
    if (opts.send_initial_events) {
      if (!params.resource_version) {
        if (Status st = ctx.store.WaitForLatest(); !st.ok()) return call->Fail(st);
      }
      opts.resource_version = 0;
    }
  }
  // A served version's frames carry its own messages: the stored kind's when it has the stored
  // shape, else those it names (resource.k8s.io/v1beta1).
  const api::ServedVersion* served = call->route.served;
  const api::TypeInfo& type = served ? *served->storage->type : *call->resource().type;
  const bool has_protobuf = served ? served->has_protobuf() : api::HasProtobuf(type);
  if (output.protobuf && !has_protobuf) {
    if (!output.json_acceptable) {
      return call->Fail(NotAcceptableError(api::kProtobufContentType));
    }
    output.protobuf = false;
  }
  // A protobuf watch ends with a 406 at the first object it cannot carry; only clients that
  // said they watch on in JSON then get one for kinds where that can happen.
  if (output.protobuf && output.json_acceptable && !output.protobuf_watch_fallback &&
      api::ProtobufMayRefuse(type)) {
    output.protobuf = false;
  }
  auto watcher = ctx.store.Watch(&call->resource(), std::move(opts));
  if (!watcher.ok()) return call->Fail(watcher.status());
  WatchSpec spec;
  spec.resource = &call->view();
  spec.cache = &call->cache();
  spec.output = output;
  spec.bookmarks = params.allow_bookmarks;
  spec.initial_events_end = params.send_initial_events.value_or(false);
  if (params.timeout_seconds && *params.timeout_seconds > 0) {
    spec.deadline = ctx.clock.Steady() + std::chrono::seconds(*params.timeout_seconds);
  }
  auto stream = std::make_shared<WatchStream>(ctx, std::move(watcher).value(), std::move(spec));
  ctx.streams.Add(stream);
  Response res;
  res.status = 200;
  res.content_type = output.protobuf ? std::string(api::kProtobufWatchContentType)
                                     : std::string("application/json");
  res.stream = std::move(stream);
  call->Reply(std::move(res));
}

}  // namespace

void ServeGet(const CallPtr& call) {
  call->set_verb("GET");
  auto output = NegotiateOutput(call->req);
  if (!output.ok()) return call->Fail(output.status());
  ServerContext& ctx = call->ctx;
  // Without a resourceVersion the read is consistent: it sees every write acknowledged before
  // it, on any replica. "0" (or any other) may be served from this replica's index as it is.
  if (call->req.Query("resourceVersion").value_or("").empty()) {
    if (Status st = ctx.store.WaitForLatest(); !st.ok()) return call->Fail(st);
  }
  auto obj = ctx.store.Get(call->resource(), call->route.namespace_, call->route.name);
  if (!obj.ok()) return call->Fail(obj.status());
  if (output->protobuf) return call->Reply(ObjectResponse(200, *obj, *output, call->cache()));
  Response res = JsonResponse(
      200, ObjectOutputJson(call->view(), *obj, *output, ctx.clock.Now(), call->cache()));
  res.content_type = OutputContentType(*output, false);
  call->Reply(std::move(res));
}

void ServeList(const CallPtr& call) {
  call->set_verb("LIST");
  auto params = ParseListParams(call->req, call->resource());
  if (!params.ok()) return call->Fail(params.status());
  auto output = NegotiateOutput(call->req);
  if (!output.ok()) return call->Fail(output.status());
  if (params->watch) return ServeWatch(call, std::move(params).value(), *output);

  ServerContext& ctx = call->ctx;
  api::ListOptions opts;
  opts.namespace_ = call->route.namespace_;
  opts.label_selector = std::move(params->label_selector);
  opts.field_selector = std::move(params->field_selector);
  opts.limit = params->limit;
  opts.continue_token = params->continue_token;
  if (!params->resource_version && params->continue_token.empty()) {
    if (Status st = ctx.store.WaitForLatest(); !st.ok()) return call->Fail(st);  // consistent
  }
  opts.resource_version = ListResourceVersion(*params, ctx.store.CurrentResourceVersion());
  auto list = ctx.store.List(call->resource(), opts);
  if (!list.ok()) {
    if (list.status().code() == StatusCode::kExpired && !opts.continue_token.empty()) {
      return call->Reply(ExpiredContinueResponse(opts.continue_token));
    }
    return call->Fail(list.status());
  }

  Page page;
  page.items = &list->items;
  page.resource_version = std::to_string(list->resource_version);
  page.continue_token = list->continue_token;
  page.remaining_item_count = list->remaining_item_count;
  if (output->protobuf) {
    if (auto body = ProtobufList(call->view(), page, call->cache())) {
      Response res = JsonResponse(200, std::move(*body));
      res.content_type = std::string(api::kProtobufContentType);
      return call->Reply(std::move(res));
    }
    if (!output->json_acceptable) {
      return call->Fail(NotAcceptableError(api::kProtobufContentType));
    }
  }
  std::string body;
  switch (output->kind) {
    case OutputKind::kObject:
      body = ListJson(call->view(), page, call->cache());
      break;
    case OutputKind::kPartialMetadata:
      body = PartialMetadataListJson(page);
      break;
    case OutputKind::kTable: {
      TableOptions options;
      options.include_object = output->include_object;
      options.api_version = "meta.k8s.io/" + output->table_version;
      body = TableJson(call->view(), page, ctx.clock.Now(), options, call->cache());
      break;
    }
  }
  Response res = JsonResponse(200, std::move(body));
  res.content_type = OutputContentType(*output, true);
  call->Reply(std::move(res));
}

}  // namespace allot::apiserver
