#include "apiserver/authz/attributes.h"

#include <cctype>

namespace allot::apiserver::authz {

namespace {

bool WatchAsked(const Request& req) {
  if (req.path.find("/watch/") != std::string::npos) return true;
  std::optional<std::string_view> w = req.Query("watch");
  return w && (*w == "true" || *w == "1");
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
    a.verb = WatchAsked(req) ? "watch" : (route.collection() ? "list" : "get");
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
