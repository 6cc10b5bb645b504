// What a request asks to do, in the terms authorization decides on — Kubernetes'
// authorizer.Attributes, derived as kube-apiserver's RequestInfoFactory does:
//
//   resource requests  GET/HEAD on a collection: list (watch with ?watch=true or /watch/);
//                      on an object: get (watch with ?watch=true); POST: create; PUT: update;
//                      PATCH: patch; DELETE on an object: delete, on a collection:
//                      deletecollection
//   anything else      a non-resource request: the lower-cased HTTP method on the path
//                      (/healthz, /version, /api, /apis/<group>, /openapi/v3, ...)
#pragma once

#include <string>

#include "apiserver/authn/authenticator.h"
#include "apiserver/http_types.h"
#include "apiserver/router.h"

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

Attributes AttributesOf(const Request& req, const Route& route, const authn::UserInfo& user);

}  // namespace allot::apiserver::authz
