// Building and inspecting API objects in tests through JSON, so tests do not depend on the
// C++ member names of every type.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "api/machinery/object.h"
#include "api/machinery/resources.h"

namespace allot::testing {

// Decodes a manifest (apiVersion/kind required); aborts the test binary on error.
std::unique_ptr<api::Object> ObjectFromJson(std::string_view json);
// A scheduling.koordinator.sh/v1alpha1 Reservation named `name` with `spec_json` as its spec
// and `labels_json` as metadata.labels.
std::unique_ptr<api::Object> MakeReservation(std::string_view name, std::string_view spec_json,
                                             std::string_view labels_json = "{}");
// A pod manifest in `ns` with one container (c, busybox, no requests) decoded as the API server
// would; `extra_spec` is spliced into spec (e.g. R"("nodeName":"n1")"). For pods shaped like the
// benchmarks' (requests, claims), workloads::MakePod; both take the namespace first.
std::unique_ptr<api::Object> PodManifest(std::string_view ns, std::string_view name,
                                         std::string_view extra_spec = {});
// A core/v1 Event in `ns` about pod `ns`/p (reason Scheduled, count 1); `extra_fields` is
// spliced into the object (e.g. R"("lastTimestamp":"2024-05-01T12:00:00Z")").
std::unique_ptr<api::Object> MakeEvent(std::string_view ns, std::string_view name,
                                       std::string_view extra_fields = {});
// The JSON value at a JSON pointer ("/spec/nodeName") of the object's encoding, as compact
// JSON text ("\"n1\""), or "<missing>".
std::string JsonAt(const api::Object& obj, std::string_view pointer);
const api::ResourceInfo& Resource(std::string_view group, std::string_view resource);

}  // namespace allot::testing
