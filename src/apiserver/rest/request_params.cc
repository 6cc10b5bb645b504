#include "apiserver/rest/request_params.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "api/machinery/validation.h"
#include "api/protobuf.h"
#include "apiserver/encoding/status_json.h"

namespace allot::apiserver {

namespace {

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

template <class T>
bool ParseInt(std::string_view s, T& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool IsMetaGroup(const MediaType& m) { return m.Param("g") == "meta.k8s.io"; }

// Kubernetes answers JSON for these; YAML and protobuf are not produced here.
bool AcceptsJson(const MediaType& m) {
  return m.type == "application/json" || m.type == "*/*" || m.type == "application/*" ||
         m.type.empty();
}

}  // namespace

MediaType ParseMediaType(std::string_view text) {
  MediaType m;
  size_t semi = text.find(';');
  m.type = Lower(Trim(text.substr(0, semi)));
  while (semi != std::string_view::npos) {
    text = text.substr(semi + 1);
    semi = text.find(';');
    std::string_view param = text.substr(0, semi);
    size_t eq = param.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = Lower(Trim(param.substr(0, eq)));
    std::string value = Trim(param.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    m.params[key] = value;
  }
  return m;
}

std::vector<MediaType> ParseAccept(std::string_view header) {
  std::vector<MediaType> out;
  while (!header.empty()) {
    size_t comma = header.find(',');
    std::string_view part = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    if (Trim(part).empty()) continue;
    out.push_back(ParseMediaType(part));
  }
  return out;
}

Result<Output> NegotiateOutput(const Request& req) {
  std::string_view accept = req.Header("Accept");
  Output out;
  std::string_view include = req.Query("includeObject").value_or("");
  if (include == "Object") {
    out.include_object = IncludeObject::kObject;
  } else if (include == "None") {
    out.include_object = IncludeObject::kNone;
  } else if (!include.empty() && include != "Metadata") {
    return BadRequestError("includeObject: unsupported value \"" + std::string(include) + "\"");
  }
  std::vector<MediaType> types = ParseAccept(accept);
  if (types.empty()) return out;
  for (const MediaType& m : types) {
    std::string as = m.Param("as");
    std::string v = m.Param("v");
    if (m.type == api::kProtobufContentType && as.empty()) {
      out.protobuf = true;  // JSON, if listed later, is the fallback
      out.protobuf_watch_fallback = m.Param("fallback") == "json";
      continue;
    }
    if (!AcceptsJson(m)) continue;
    if (as.empty()) return out;
    if (!IsMetaGroup(m) || (v != "v1" && v != "v1beta1")) continue;
    if (as == "Table") {
      out.kind = OutputKind::kTable;
      out.table_version = v;
      out.protobuf = false;
      return out;
    }
    if (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") {
      out.kind = OutputKind::kPartialMetadata;
      out.protobuf = false;
      return out;
    }
  }
  if (out.protobuf) {
    out.json_acceptable = false;
    return out;
  }
  return NotAcceptableError(accept);
}

std::string OutputContentType(const Output& out, bool list) {
  switch (out.kind) {
    case OutputKind::kTable:
      return "application/json;as=Table;v=" + out.table_version + ";g=meta.k8s.io";
    case OutputKind::kPartialMetadata:
      return std::string("application/json;as=") +
             (list ? "PartialObjectMetadataList" : "PartialObjectMetadata") + ";v=v1;g=meta.k8s.io";
    case OutputKind::kObject:
      break;
  }
  return "application/json";
}

std::string AggregatedDiscoveryVersion(const Request& req) {
  for (const MediaType& m : ParseAccept(req.Header("Accept"))) {
    if (!AcceptsJson(m)) continue;
    if (m.Param("as").empty()) return "";  // plain JSON preferred: legacy discovery
    if (m.Param("as") != "APIGroupDiscoveryList" || m.Param("g") != "apidiscovery.k8s.io") {
      continue;
    }
    std::string v = m.Param("v");
    if (v == "v2" || v == "v2beta1") return v;
  }
  return "";
}

namespace {

Status CheckFieldLabels(const api::FieldSelectorExpr& sel, const api::ResourceInfo& r) {
  for (const auto& req : sel.requirements()) {
    const std::string& f = req.field;
    if (f == "metadata.name" || f == "metadata.namespace") continue;
    if (std::find(r.field_labels.begin(), r.field_labels.end(), f) != r.field_labels.end()) {
      continue;
    }
    return BadRequestError("field label not supported: " + f);
  }
  return Status::Ok();
}

Status ParseSelectors(const Request& req, const api::ResourceInfo& r, ListParams& p) {
  if (auto v = req.Query("labelSelector")) {
    auto sel = api::LabelSelectorExpr::Parse(*v);
    if (!sel.ok()) return BadRequestError(sel.status().message());
    p.label_selector = std::move(sel).value();
  }
  if (auto v = req.Query("fieldSelector")) {
    auto sel = api::FieldSelectorExpr::Parse(*v);
    if (!sel.ok()) return BadRequestError(sel.status().message());
    ALLOT_RETURN_IF_ERROR(CheckFieldLabels(*sel, r));
    p.field_selector = std::move(sel).value();
  }
  return Status::Ok();
}

Status ParseNumbers(const Request& req, ListParams& p) {
  if (auto v = req.Query("limit"); v && !v->empty()) {
    if (!ParseInt(*v, p.limit) || p.limit < 0) {
      return BadRequestError("invalid limit \"" + std::string(*v) + "\"");
    }
  }
  if (auto v = req.Query("resourceVersion"); v && !v->empty()) {
    uint64_t rv = 0;
    if (!ParseInt(*v, rv)) {
      return BadRequestError("invalid resource version \"" + std::string(*v) + "\"");
    }
    p.resource_version = rv;
  }
  if (auto v = req.Query("timeoutSeconds"); v && !v->empty()) {
    int64_t t = 0;
    if (!ParseInt(*v, t) || t < 0) {
      return BadRequestError("invalid timeoutSeconds \"" + std::string(*v) + "\"");
    }
    p.timeout_seconds = t;
  }
  return Status::Ok();
}

}  // namespace

bool QueryFlag(const Request& req, std::string_view name) {
  auto v = req.Query(name);
  if (!v || *v == "0") return false;
  const bool is_false =
      v->size() == 5 && std::equal(v->begin(), v->end(), "false", [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
      });
  return !is_false;
}

namespace {

// ValidateListOptions of the apiserver: 422 Invalid on ListOptions.
Status ValidateListOptions(const ListParams& p) {
  api::FieldErrors errs;
  const std::string& m = p.resource_version_match;
  const api::Path match_path("resourceVersionMatch");
  if (p.watch) {
    if (p.send_initial_events && m != "NotOlderThan") {
      errs.Forbidden(match_path,
                     "sendInitialEvents requires setting resourceVersionMatch to "
                     "NotOlderThan");
    } else if (!m.empty() && !p.send_initial_events) {
      errs.Forbidden(match_path,
                     "resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
                     "provided");
    } else if (!m.empty() && m != "NotOlderThan") {
      errs.NotSupported(match_path, m, {"NotOlderThan"});
    }
  } else {
    if (p.send_initial_events) {
      errs.Forbidden(api::Path("sendInitialEvents"), "sendInitialEvents is forbidden for list");
    }
    if (!m.empty() && m != "NotOlderThan" && m != "Exact") {
      errs.NotSupported(match_path, m, {"Exact", "NotOlderThan"});
    } else if (!m.empty() && !p.resource_version) {
      errs.Forbidden(match_path,
                     "resourceVersionMatch is forbidden unless resourceVersion is "
                     "provided");
    } else if (m == "Exact" && p.resource_version == 0u) {
      errs.Forbidden(match_path,
                     "resourceVersionMatch \"exact\" is forbidden for "
                     "resourceVersion \"0\"");
    }
  }
  return errs.ToStatus("ListOptions", "meta.k8s.io", "");
}

}  // namespace

Result<ListParams> ParseListParams(const Request& req, const api::ResourceInfo& resource) {
  ListParams p;
  ALLOT_RETURN_IF_ERROR(ParseSelectors(req, resource, p));
  ALLOT_RETURN_IF_ERROR(ParseNumbers(req, p));
  p.continue_token = std::string(req.Query("continue").value_or(""));
  p.resource_version_match = std::string(req.Query("resourceVersionMatch").value_or(""));
  p.watch = QueryFlag(req, "watch");
  p.allow_bookmarks = QueryFlag(req, "allowWatchBookmarks");
  if (req.Query("sendInitialEvents")) p.send_initial_events = QueryFlag(req, "sendInitialEvents");
  ALLOT_RETURN_IF_ERROR(ValidateListOptions(p));
  if (!p.continue_token.empty() && p.resource_version && *p.resource_version != 0) {
    return BadRequestError("specifying resource version is not allowed when using continue");
  }
  return p;
}

Result<FieldValidation> ParseFieldValidation(const Request& req) {
  std::string_view v = req.Query("fieldValidation").value_or("");
  if (v.empty() || v == "Warn") return FieldValidation::kWarn;
  if (v == "Strict") return FieldValidation::kStrict;
  if (v == "Ignore") return FieldValidation::kIgnore;
  return BadRequestError("fieldValidation: Unsupported value: \"" + std::string(v) +
                         "\": supported values: \"Ignore\", \"Strict\", \"Warn\"");
}

Result<bool> ParseDryRun(const Request& req) {
  bool dry = false;
  for (std::string_view v : req.QueryAll("dryRun")) {
    if (v != "All") {
      return BadRequestError("dryRun: Unsupported value: \"" + std::string(v) +
                             "\": supported values: \"All\"");
    }
    dry = true;
  }
  return dry;
}

}  // namespace allot::apiserver
