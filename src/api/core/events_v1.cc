// events.k8s.io/v1 Event: the same objects as core/v1 Events (one store, as kube-apiserver keeps
// both at /registry/events), shown under the events API's field names
// (pkg/apis/events/v1/conversion.go, Kubernetes 1.37):
//
//   events.k8s.io/v1          core/v1
//   regarding                 involvedObject
//   note                      message
//   reportingController       reportingComponent
//   deprecatedSource          source
//   deprecatedFirstTimestamp  firstTimestamp
//   deprecatedLastTimestamp   lastTimestamp
//   deprecatedCount           count
//
// Everything else (eventTime, series, reportingInstance, action, reason, related, type) has the
// same name in both.
#include <string_view>
#include <utility>

#include "api/machinery/json_edit.h"
#include "api/machinery/resources.h"

namespace allot::api {

namespace {

using namespace json_edit;  // NOLINT: Document, Rename, Reorder, ...

constexpr std::pair<std::string_view, std::string_view> kRenames[] = {
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"reportingController", "reportingComponent"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
};

Status EventsToCore(Document& doc) {
  for (const auto& [events, core] : kRenames) Rename(doc, events, core, doc.GetAllocator());
  SetApiVersion(doc, "v1");
  return Status();
}

void CoreToEvents(Document& doc) {
  Allocator& a = doc.GetAllocator();
  for (const auto& [events, core] : kRenames) Rename(doc, core, events, a);
  SetApiVersion(doc, "events.k8s.io/v1");
  // events.k8s.io/v1's field order (k8s.io/api events/v1 Event).
  Reorder(doc,
          {"kind", "apiVersion", "metadata", "eventTime", "series", "reportingController",
           "reportingInstance", "action", "reason", "regarding", "related", "note", "type",
           "deprecatedSource", "deprecatedFirstTimestamp", "deprecatedLastTimestamp",
           "deprecatedCount"},
          a);
}

}  // namespace

void RegisterEventsServedVersion(ResourceRegistry& registry) {
  registry.AddServedVersion("", "events", "events.k8s.io", "v1", EventsToCore, CoreToEvents);
}

}  // namespace allot::api
