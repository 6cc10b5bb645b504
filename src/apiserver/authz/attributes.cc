#include "apiserver/authz/attributes.h"

#include <cctype>

#include "api/machinery/meta_validation.h"
#include "api/machinery/selector.h"
#include "apiserver/rest/request_params.h"

namespace allot::apiserver::authz {

namespace {

// The name a list or watch is narrowed to by `fieldSelector=metadata.name=<name>`, as
// kube-apiserver's RequestInfoFactory reads it (so that rules with resourceNames allow watching
// one object); "" when it names none.
std::string SelectedName(const Request& req) {
  std::optional<std::string_view> text = req.Query("fieldSelector");
  if (!text) return "";
  Result<api::FieldSelectorExpr> selector = api::FieldSelectorExpr::Parse(*text);
  if (!selector.ok()) return "";
  std::optional<std::string> name = selector->ExactMatch("metadata.name");
  if (!name || !api::NameIsPathSegment(*name, false).empty()) return "";
  return *name;
}

struct ReviewPath {
  std::string_view path;
  Review review;
  std::string_view group;
  std::string_view resource;
};

constexpr ReviewPath kReviews[] = {
    {"/apis/authentication.k8s.io/v1/selfsubjectreviews", Review::kSelfSubjectReview,
     "authentication.k8s.io", "selfsubjectreviews"},
    {"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", Review::kSelfSubjectAccessReview,
     "authorization.k8s.io", "selfsubjectaccessreviews"},
    {"/apis/authorization.k8s.io/v1/subjectaccessreviews", Review::kSubjectAccessReview,
     "authorization.k8s.io", "subjectaccessreviews"},
    {"/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", Review::kSelfSubjectRulesReview,
     "authorization.k8s.io", "selfsubjectrulesreviews"},
};

const ReviewPath* FindReview(std::string_view path) {
  for (const ReviewPath& r : kReviews) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

}  // namespace

Review ReviewOf(std::string_view path) {
  const ReviewPath* r = FindReview(path);
  return r ? r->review : Review::kNone;
}

Attributes AttributesOf(const Request& req, const Route& route, const authn::UserInfo& user) {
  Attributes a;
  a.user = user;
  if (const ReviewPath* r = req.method == "POST" ? FindReview(req.path) : nullptr) {
    a.resource_request = true;
    a.api_group = std::string(r->group);
    a.api_version = "v1";
    a.resource = std::string(r->resource);
    a.verb = "create";
    return a;
  }
  if (route.kind != RouteKind::kResource || !route.resource) {
    a.path = req.path;
    a.verb = req.method;
    for (char& c : a.verb) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return a;
  }
  a.resource_request = true;
  a.namespace_ = route.namespace_;
  a.api_group = route.group;
  a.api_version = route.version;
  a.resource = route.resource->resource;
  a.subresource = route.subresource;
  a.name = route.name;
  const std::string& m = req.method;
  if (m == "GET" || m == "HEAD") {
    // A collection is listed or watched as the list handler decides it; an object is got,
    // whatever ?watch says (it is never watched).
    if (route.collection()) {
      a.verb = QueryFlag(req, "watch") ? "watch" : "list";
      a.name = SelectedName(req);
    } else {
      a.verb = "get";
    }
  } else if (m == "POST") {
    a.verb = "create";
  } else if (m == "PUT") {
    a.verb = "update";
  } else if (m == "PATCH") {
    a.verb = "patch";
  } else if (m == "DELETE") {
    a.verb = route.collection() ? "deletecollection" : "delete";
  } else {
    a.verb = m;
    for (char& c : a.verb) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return a;
}

}  // namespace allot::apiserver::authz
