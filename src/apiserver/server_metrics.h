// The API server's Prometheus metrics, registered once in a (possibly shared) registry.
// Names and labels follow kube-apiserver where one exists; label names are sorted, as
// client_golang writes them.
#pragma once

#include "common/metrics.h"
#include "store/store.h"

namespace allot::apiserver {

struct ServerMetrics {
  ServerMetrics(metrics::Registry& registry, store::Store& store);
  // Unregisters the function metrics that read the store.
  ~ServerMetrics();
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;

  metrics::Registry& registry;

  // apiserver_request_total{code, resource, subresource, verb}
  metrics::CounterFamily& requests;
  // apiserver_request_duration_seconds{resource, subresource, verb} (not for WATCH)
  metrics::HistogramFamily& request_duration;
  // apiserver_longrunning_requests{resource, verb="WATCH"}
  metrics::GaugeFamily& longrunning;
  // apiserver_registered_watchers{group, kind, version}
  metrics::GaugeFamily& registered_watchers;
  // apiserver_watch_events_total{group, kind, version}
  metrics::CounterFamily& watch_events;
  // apiserver_current_inflight_requests{request_kind="mutating"|"readOnly"}
  metrics::GaugeFamily& inflight;
  // apiserver_dropped_requests_total{request_kind}: refused with 429 by the in-flight limits.
  metrics::CounterFamily& rejected_inflight;
  // allot_store_write_duration_seconds{operation="create"|"update"|"delete"}: from handing a
  // write to the store until it is durable and acknowledged.
  metrics::HistogramFamily& store_write_duration;
};

}  // namespace allot::apiserver
