// Query parameters and content negotiation, parsed and validated once per request.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/resources.h"
#include "api/machinery/selector.h"
#include "apiserver/transport/http_types.h"
#include "common/status.h"

namespace allot::apiserver {

// One entry of an Accept or Content-Type header: "application/json;as=Table;v=v1".
struct MediaType {
  std::string type;                           // lower-case "application/json"
  std::map<std::string, std::string> params;  // lower-case keys
  std::string Param(const std::string& key) const {
    auto it = params.find(key);
    return it == params.end() ? std::string() : it->second;
  }
};
MediaType ParseMediaType(std::string_view text);
std::vector<MediaType> ParseAccept(std::string_view header);

// What shape the client asked for (Accept), for GET / LIST / WATCH.
enum class OutputKind { kObject, kTable, kPartialMetadata };
enum class IncludeObject { kMetadata, kObject, kNone };
struct Output {
  OutputKind kind = OutputKind::kObject;
  // Objects only: the client named application/vnd.kubernetes.protobuf before any JSON type.
  // It gets protobuf where the kind and the object allow (api/protobuf.h), JSON otherwise, or
  // a 406 when it accepts no JSON.
  bool protobuf = false;
  bool json_acceptable = true;
  // The protobuf type carried `fallback=json`: the client (Allot's) watches on in JSON when a
  // protobuf watch ends with a 406. Without it, watches of kinds whose objects protobuf may
  // refuse stay JSON when JSON is acceptable, so client-go's reflectors never see that ERROR.
  bool protobuf_watch_fallback = false;
  IncludeObject include_object = IncludeObject::kMetadata;  // tables only
  std::string table_version = "v1";                         // v1 or v1beta1
};
// 406 when every media type in Accept is one we cannot produce (e.g. YAML only).
Result<Output> NegotiateOutput(const Request& req);
// Content-Type for a table / partial metadata response ("application/json;as=Table;v=v1;
// g=meta.k8s.io"), or "application/json".
std::string OutputContentType(const Output& out, bool list);

// Aggregated discovery (apidiscovery.k8s.io) requested: returns the version ("v2" or
// "v2beta1") of the first acceptable entry, or "" for legacy discovery.
std::string AggregatedDiscoveryVersion(const Request& req);

// List and watch parameters (api-reference §4.3).
struct ListParams {
  api::LabelSelectorExpr label_selector;
  api::FieldSelectorExpr field_selector;
  int64_t limit = 0;
  std::string continue_token;
  std::optional<uint64_t> resource_version;  // nullopt: unset
  std::string resource_version_match;        // "", NotOlderThan, Exact
  std::optional<int64_t> timeout_seconds;
  bool watch = false;
  bool allow_bookmarks = false;
  // sendInitialEvents (watch-list): nullopt when absent.
  std::optional<bool> send_initial_events;
};
// 400 for malformed values, unsupported field labels (`field label not supported: X`) and
// inconsistent combinations.
Result<ListParams> ParseListParams(const Request& req, const api::ResourceInfo& resource);

enum class FieldValidation { kIgnore, kWarn, kStrict };
Result<FieldValidation> ParseFieldValidation(const Request& req);
// dryRun=All → true; absent → false; anything else → 400.
Result<bool> ParseDryRun(const Request& req);
// A boolean query parameter as kube-apiserver decodes ListOptions and friends: present and
// neither "0" nor "false" (in any case) is true, a bare `?watch` included. Authorization derives
// its verb (watch or list) from the same answer the list handler serves by.
bool QueryFlag(const Request& req, std::string_view name);

}  // namespace allot::apiserver
