#include "apiserver/server_metrics.h"

namespace allot::apiserver {

namespace {

using metrics::Stability;

// kube-apiserver's request latency buckets.
std::vector<double> RequestBuckets() {
  return {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
          3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60};
}

}  // namespace

ServerMetrics::ServerMetrics(metrics::Registry& r, store::Store& store)
    : registry(r),
      requests(r.AddCounter("apiserver_request_total",
                            "Counter of apiserver requests broken out for each verb, resource, "
                            "subresource and HTTP response code.",
                            Stability::kStable, {"code", "resource", "subresource", "verb"})),
      request_duration(r.AddHistogram(
          "apiserver_request_duration_seconds",
          "Response latency distribution in seconds for each verb, resource and subresource.",
          Stability::kStable, {"resource", "subresource", "verb"}, RequestBuckets())),
      longrunning(r.AddGauge("apiserver_longrunning_requests",
                             "Gauge of all active long-running apiserver requests broken out by "
                             "verb and resource.",
                             Stability::kStable, {"resource", "verb"})),
      registered_watchers(r.AddGauge("apiserver_registered_watchers",
                                     "Number of currently registered watchers for a given "
                                     "resource.",
                                     Stability::kAlpha, {"group", "kind", "version"})),
      watch_events(r.AddCounter("apiserver_watch_events_total",
                                "Number of events sent in watch clients.", Stability::kAlpha,
                                {"group", "kind", "version"})),
      inflight(r.AddGauge("apiserver_current_inflight_requests",
                          "Maximal number of currently used inflight request limit of this "
                          "apiserver per request kind in last second.",
                          Stability::kStable, {"request_kind"})),
      rejected_inflight(r.AddCounter("apiserver_dropped_requests_total",
                                     "Number of requests dropped with 'Try again later' response.",
                                     Stability::kAlpha, {"request_kind"})),
      store_write_duration(r.AddHistogram(
          "allot_store_write_duration_seconds",
          "Latency of store writes issued by the API server, from submission until the write "
          "is durable.",
          Stability::kAlpha, {"operation"}, metrics::ExponentialBuckets(0.0001, 2, 16))) {
  r.AddCounterFunc("allot_store_writes_total", "Writes committed by the store.", Stability::kAlpha,
                   [&store] { return static_cast<double>(store.GetStats().writes); });
  r.AddCounterFunc("allot_store_batches_total",
                   "Backend transactions (group commits) made by the store.", Stability::kAlpha,
                   [&store] { return static_cast<double>(store.GetStats().batches); });
  r.AddGaugeFunc("allot_store_watchers", "Watchers registered in the store.", Stability::kAlpha,
                 [&store] { return static_cast<double>(store.GetStats().watchers); });
}

ServerMetrics::~ServerMetrics() {
  registry.RemoveFunc("allot_store_writes_total");
  registry.RemoveFunc("allot_store_batches_total");
  registry.RemoveFunc("allot_store_watchers");
}

}  // namespace allot::apiserver
