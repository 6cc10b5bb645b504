#include "apiserver/authz/authorizer.h"

#include <algorithm>

namespace allot::apiserver::authz {

Verdict AuthorizerChain::Authorize(const Attributes& request) const {
  std::string reasons;
  for (const auto& a : chain_) {
    Verdict v = a->Authorize(request);
    if (v.decision != Decision::kNoOpinion) return v;
    if (!v.reason.empty()) {
      if (!reasons.empty()) reasons += ", ";
      reasons += v.reason;
    }
  }
  return Verdict{Decision::kNoOpinion, std::move(reasons)};
}

Verdict PrivilegedGroupAuthorizer::Authorize(const Attributes& request) const {
  const auto& groups = request.user.groups;
  if (std::find(groups.begin(), groups.end(), group_) != groups.end()) {
    return Verdict{Decision::kAllow, ""};
  }
  return {};
}

Status ForbiddenStatus(const Attributes& a, std::string_view reason) {
  std::string msg;
  StatusDetails details;
  if (a.resource_request) {
    std::string resource = a.resource;
    if (!a.subresource.empty()) resource += "/" + a.subresource;
    msg = a.resource;
    if (!a.name.empty()) msg += " \"" + a.name + "\"";
    msg += " is forbidden: User \"" + a.user.name + "\" cannot " + a.verb + " resource \"" +
           resource + "\" in API group \"" + a.api_group + "\"";
    msg += a.namespace_.empty() ? " at the cluster scope"
                                : " in the namespace \"" + a.namespace_ + "\"";
    details.name = a.name;
    details.group = a.api_group;
    details.kind = a.resource;
  } else {
    msg = "forbidden: User \"" + a.user.name + "\" cannot " + a.verb + " path \"" + a.path + "\"";
  }
  if (!reason.empty()) {
    msg += ": ";
    msg += reason;
  }
  Status st(StatusCode::kForbidden, std::move(msg));
  if (a.resource_request) st.WithDetails(std::move(details));
  return st;
}

}  // namespace allot::apiserver::authz
