// What a request asks to do, in the terms authorization decides on — Kubernetes'
// authorizer.Attributes, derived as kube-apiserver's RequestInfoFactory does:
//
//   resource requests  GET/HEAD on a collection: list, or watch when ?watch= is true as the
//                      list handler reads it (request_params.h, QueryFlag), the name that of a
//                      fieldSelector=metadata.name=<name>; on an object: get; POST: create;
//                      PUT: update;
//                      PATCH: patch; DELETE on an object: delete, on a collection:
//                      deletecollection
//   reviews            POST /apis/authentication.k8s.io/v1/selfsubjectreviews and
//                      /apis/authorization.k8s.io/v1/{self,}subjectaccessreviews,
//                      selfsubjectrulesreviews: create on that resource (they are answered,
//                      never stored; see ReviewOf)
//   anything else      a non-resource request: the lower-cased HTTP method on the path
//                      (/healthz, /version, /api, /apis/<group>, /openapi/v3, ...)
#pragma once

#include <string>

#include "apiserver/authn/authenticator.h"
#include "apiserver/rest/router.h"
#include "apiserver/transport/http_types.h"

namespace allot::apiserver::authz {

struct Attributes {
  authn::UserInfo user;
  std::string verb;
  bool resource_request = false;
  // Resource requests.
  std::string namespace_;
  std::string api_group;  // "" for core
  std::string api_version;
  std::string resource;     // plural
  std::string subresource;  // "status", "binding", "eviction", ...
  std::string name;
  // Non-resource requests.
  std::string path;
};

// The review resources: answered on POST, computed from the request, never stored.
enum class Review {
  kNone,
  kSelfSubjectReview,        // authentication.k8s.io: who am I
  kSelfSubjectAccessReview,  // authorization.k8s.io: may I
  kSubjectAccessReview,      // authorization.k8s.io: may they
  kSelfSubjectRulesReview,   // authorization.k8s.io: what may I, in a namespace
};
Review ReviewOf(std::string_view path);

Attributes AttributesOf(const Request& req, const Route& route, const authn::UserInfo& user);

}  // namespace allot::apiserver::authz
