#include "apiserver/authz/impersonation.h"

#include <algorithm>
#include <cctype>

#include "api/machinery/names.h"
#include "api/machinery/validation.h"

namespace allot::apiserver::authz {

namespace {

constexpr std::string_view kUserHeader = "Impersonate-User";
constexpr std::string_view kUidHeader = "Impersonate-Uid";
constexpr std::string_view kGroupHeader = "Impersonate-Group";
constexpr std::string_view kExtraPrefix = "impersonate-extra-";
constexpr std::string_view kAuthenticationGroup = "authentication.k8s.io";
constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";
constexpr std::string_view kNodePrefix = "system:node:";
constexpr std::string_view kNodesGroup = "system:nodes";
// At this many groups or extra values a constrained mode first asks for all of them at once.
constexpr size_t kManyChecks = 4;

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// url.PathUnescape of an extra key, or the key as it is when an escape in it is malformed.
std::string UnescapeExtraKey(const std::string& key) {
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] != '%') continue;
    if (i + 2 >= key.size() || !std::isxdigit(static_cast<unsigned char>(key[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(key[i + 2]))) {
      return key;
    }
  }
  return PercentDecode(key, false);
}

bool Contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// system:serviceaccount:<namespace>:<name>, both valid names.
bool SplitServiceAccount(std::string_view user, std::string* ns, std::string* name) {
  if (!user.starts_with(kServiceAccountPrefix)) return false;
  user.remove_prefix(kServiceAccountPrefix.size());
  const size_t colon = user.find(':');
  if (colon == std::string_view::npos || user.find(':', colon + 1) != std::string_view::npos) {
    return false;
  }
  std::string_view n = user.substr(0, colon), sa = user.substr(colon + 1);
  if (!api::IsDnsLabel(n) || !api::IsDnsSubdomain(sa)) return false;
  *ns = std::string(n);
  *name = std::string(sa);
  return true;
}

// system:node:<node>, a valid node name.
bool SplitNode(std::string_view user, std::string* node) {
  if (!user.starts_with(kNodePrefix)) return false;
  user.remove_prefix(kNodePrefix.size());
  if (!api::IsDnsSubdomain(user)) return false;
  *node = std::string(user);
  return true;
}

bool OnlyNameSet(const authn::UserInfo& u) {
  return u.uid.empty() && u.groups.empty() && u.extra.empty();
}

// Go's %#v of the *user.DefaultInfo kube-apiserver puts in the 400's message.
std::string DescribeWanted(const authn::UserInfo& w) {
  std::string out = "&user.DefaultInfo{Name:" + api::Quote(w.name) + ", UID:" + api::Quote(w.uid) +
                    ", Groups:";
  out += w.groups.empty() ? "[]string(nil)" : api::GoStringSlice(w.groups);
  out += ", Extra:";
  if (w.extra.empty()) return out + "map[string][]string(nil)}";
  out += "map[string][]string{";
  bool first = true;
  for (const auto& [key, values] : w.extra) {  // sorted by key, as fmt prints maps
    if (!first) out += ", ";
    first = false;
    out += api::Quote(key) + ":" + api::GoStringSlice(values);
  }
  return out + "}}";
}

Status Check(const Authorizer& authorizer, const Attributes& a) {
  Verdict v = authorizer.Authorize(a);
  if (v.decision == Decision::kAllow) return Status::Ok();
  return ForbiddenStatus(a, v.reason);
}

Attributes On(const authn::UserInfo& requester, std::string_view verb, std::string_view group,
              std::string_view resource, std::string_view name) {
  Attributes a;
  a.user = requester;
  a.verb = std::string(verb);
  a.resource_request = true;
  a.api_group = std::string(group);
  a.api_version = "v1";
  a.resource = std::string(resource);
  a.name = std::string(name);
  return a;
}

// kube-apiserver's check of extras in constrained modes: keys are lower-case domain-prefixed
// paths, values present and non-empty. "" when they are.
std::string ExtraProblem(const std::map<std::string, std::vector<std::string>>& extra) {
  for (const auto& [key, values] : extra) {
    if (key.empty()) return "impersonating the empty string key in extra is not allowed";
    const size_t slash = key.find('/');
    const bool path_ok =
        slash != std::string::npos && slash + 1 < key.size() &&
        std::all_of(key.begin() + slash + 1, key.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) ||
                 std::string_view("/-._~%!$&'()*+,;=:").find(c) != std::string_view::npos;
        });
    if (slash == 0 || !path_ok || !api::IsDnsSubdomain(std::string_view(key).substr(0, slash))) {
      return "impersonating an invalid key in extra is not allowed: extra.key: Invalid value: " +
             api::Quote(key) + ": must be a domain-prefixed path (such as \"acme.io/foo\")";
    }
    if (key != Lower(key)) {
      return "impersonating a non-lowercase key in extra is not allowed: " + api::Quote(key);
    }
    if (values.empty()) return "impersonating empty values in extra is not allowed";
    if (Contains(values, "")) return "impersonating the empty string value in extra is not allowed";
  }
  return "";
}

// One way of being allowed: the legacy verb, or a constrained mode's.
struct Mode {
  std::string_view name;  // "" for legacy
  bool constrained = false;
  // Whether the mode applies to this wanted user at all.
  bool (*applies)(const authn::UserInfo& wanted) = nullptr;
};

bool AnyUser(const authn::UserInfo&) { return true; }
bool ArbitraryNode(const authn::UserInfo& w) {
  std::string node;
  return OnlyNameSet(w) && SplitNode(w.name, &node);
}
bool ServiceAccount(const authn::UserInfo& w) {
  std::string ns, name;
  return OnlyNameSet(w) && SplitServiceAccount(w.name, &ns, &name);
}
bool UserInfoMode(const authn::UserInfo& w) {
  std::string a, b;
  return !SplitNode(w.name, &a) && !SplitServiceAccount(w.name, &a, &b);
}

constexpr Mode kModes[] = {
    {"arbitrary-node", true, ArbitraryNode},
    {"serviceaccount", true, ServiceAccount},
    {"user-info", true, UserInfoMode},
    {"", false, AnyUser},
};

// The user the mode allows `requester` to act as, or the 403 of the first check it failed.
Result<authn::UserInfo> Allowed(const Mode& mode, const Authorizer& authorizer,
                                const authn::UserInfo& requester, const authn::UserInfo& wanted) {
  const std::string verb =
      mode.constrained ? "impersonate:" + std::string(mode.name) : std::string("impersonate");
  const std::string_view user_group = mode.constrained ? kAuthenticationGroup : "";
  authn::UserInfo actual = wanted;

  Attributes name = On(requester, verb, user_group, "users", wanted.name);
  std::string node, ns, sa;
  if (mode.constrained && SplitNode(wanted.name, &node)) {
    name.resource = "nodes";
    name.name = node;
    if (!wanted.groups.empty()) {
      return ForbiddenStatus(name, "when impersonating a node, cannot impersonate groups " +
                                       api::GoQuotedList(wanted.groups));
    }
    actual.groups = {std::string(kNodesGroup)};
  }
  if (SplitServiceAccount(wanted.name, &ns, &sa)) {
    name.resource = "serviceaccounts";
    name.namespace_ = ns;
    name.name = sa;
    if (mode.constrained && !wanted.groups.empty()) {
      return ForbiddenStatus(name, "when impersonating a service account, cannot impersonate groups " +
                                       api::GoQuotedList(wanted.groups));
    }
    if (wanted.groups.empty()) {
      actual.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns};
    }
  }
  ALLOT_RETURN_IF_ERROR(Check(authorizer, name));

  if (!wanted.uid.empty()) {
    ALLOT_RETURN_IF_ERROR(
        Check(authorizer, On(requester, verb, kAuthenticationGroup, "uids", wanted.uid)));
  }

  if (!wanted.groups.empty()) {
    Attributes groups = On(requester, verb, user_group, "groups", "");
    if (mode.constrained && Contains(wanted.groups, "")) {
      return ForbiddenStatus(groups, "impersonating the empty string group is not allowed");
    }
    if (mode.constrained && Contains(wanted.groups, kMastersGroup)) {
      groups.name = std::string(kMastersGroup);
      return ForbiddenStatus(groups, "impersonating the system:masters group is not allowed");
    }
    groups.name = "*";
    const bool all = mode.constrained && wanted.groups.size() >= kManyChecks &&
                     authorizer.Authorize(groups).decision == Decision::kAllow;
    for (size_t i = 0; !all && i < wanted.groups.size(); ++i) {
      groups.name = wanted.groups[i];
      ALLOT_RETURN_IF_ERROR(Check(authorizer, groups));
    }
  }

  if (!wanted.extra.empty()) {
    Attributes extras = On(requester, verb, kAuthenticationGroup, "userextras", "");
    if (mode.constrained) {
      if (std::string problem = ExtraProblem(wanted.extra); !problem.empty()) {
        return ForbiddenStatus(extras, problem);
      }
    }
    size_t values = 0;
    for (const auto& [key, v] : wanted.extra) values += v.size();
    bool all = false;
    if (mode.constrained && (wanted.extra.size() >= kManyChecks || values >= kManyChecks)) {
      extras.subresource = "*";
      extras.name = "*";
      all = authorizer.Authorize(extras).decision == Decision::kAllow;
    }
    for (auto it = wanted.extra.begin(); !all && it != wanted.extra.end(); ++it) {
      extras.subresource = it->first;
      for (const std::string& value : it->second) {
        extras.name = value;
        ALLOT_RETURN_IF_ERROR(Check(authorizer, extras));
      }
    }
  }

  auto ensure = [&](std::string_view group) {
    if (!Contains(actual.groups, group)) actual.groups.emplace_back(group);
  };
  if (actual.name == authn::kAnonymousUser) {
    ensure(authn::kUnauthenticatedGroup);
  } else if (!Contains(actual.groups, authn::kUnauthenticatedGroup)) {
    ensure(authn::kAuthenticatedGroup);
  }
  return actual;
}

}  // namespace

Result<std::optional<authn::UserInfo>> ImpersonationRequested(const Request& req) {
  authn::UserInfo wanted;
  bool has_extra = false, seen_user = false, seen_uid = false;
  for (const auto& [key, value] : req.headers) {
    if (IEquals(key, kUserHeader)) {
      if (!seen_user) wanted.name = value;  // the first, even empty, as Go's Header.Get
      seen_user = true;
    } else if (IEquals(key, kUidHeader)) {
      if (!seen_uid) wanted.uid = value;
      seen_uid = true;
    } else if (IEquals(key, kGroupHeader)) {
      wanted.groups.push_back(value);
    } else if (key.size() >= kExtraPrefix.size() &&
               IEquals(std::string_view(key).substr(0, kExtraPrefix.size()), kExtraPrefix)) {
      has_extra = true;
      wanted.extra[UnescapeExtraKey(Lower(key.substr(kExtraPrefix.size())))].push_back(value);
    }
  }
  if (wanted.name.empty()) {
    if (!wanted.uid.empty() || !wanted.groups.empty() || has_extra) {
      return BadRequestError("requested " + DescribeWanted(wanted) +
                             " without impersonating a user name");
    }
    return std::optional<authn::UserInfo>();
  }
  return std::optional<authn::UserInfo>(std::move(wanted));
}

Result<Impersonated> Impersonate(const Authorizer& authorizer, const Attributes& request,
                                 const authn::UserInfo& wanted) {
  Status first;
  for (const Mode& mode : kModes) {
    if (!mode.applies(wanted)) continue;
    if (mode.constrained) {
      // What the request does, asked as impersonate-on:<mode>:<verb>.
      Attributes on = request;
      on.verb = "impersonate-on:" + std::string(mode.name) + ":" + request.verb;
      if (Status st = Check(authorizer, on); !st.ok()) {
        if (first.ok()) first = st;
        continue;
      }
    }
    Result<authn::UserInfo> user = Allowed(mode, authorizer, request.user, wanted);
    if (user.ok()) {
      const std::string constraint =
          mode.constrained ? "impersonate:" + std::string(mode.name) : std::string();
      return Impersonated{std::move(user).value(), constraint};
    }
    if (first.ok()) first = user.status();
  }
  return first;
}

}  // namespace allot::apiserver::authz
