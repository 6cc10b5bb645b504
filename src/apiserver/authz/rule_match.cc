#include "apiserver/authz/rule_match.h"

#include <algorithm>

namespace allot::apiserver::authz {

namespace {

constexpr std::string_view kAll = "*";

bool Has(const std::vector<std::string>& list, std::string_view v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

bool VerbMatches(const PolicyRule& r, std::string_view verb) {
  return Has(r.verbs, kAll) || Has(r.verbs, verb);
}

bool GroupMatches(const PolicyRule& r, std::string_view group) {
  return Has(r.apiGroups, kAll) || Has(r.apiGroups, group);
}

bool ResourceMatches(const PolicyRule& r, const std::string& resource,
                     const std::string& subresource) {
  for (const std::string& want : r.resources) {
    if (want == kAll) return true;
    if (subresource.empty()) {
      if (want == resource) return true;
      continue;
    }
    // "resource/subresource", or "*/subresource": that subresource of any resource. Compared
    // in place: a decision builds no strings.
    const size_t slash = want.find('/');
    if (slash == std::string::npos) continue;
    std::string_view head = std::string_view(want).substr(0, slash);
    std::string_view tail = std::string_view(want).substr(slash + 1);
    if (tail == subresource && (head == resource || head == kAll)) return true;
  }
  return false;
}

bool NameMatches(const PolicyRule& r, const std::string& name) {
  return r.resourceNames.empty() || Has(r.resourceNames, name);
}

bool UrlMatches(const PolicyRule& r, const std::string& path) {
  for (const std::string& want : r.nonResourceURLs) {
    if (want == kAll || want == path) return true;
    if (!want.empty() && want.back() == '*' &&
        path.compare(0, want.size() - 1, want, 0, want.size() - 1) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool RuleAllows(const Attributes& a, const PolicyRule& r) {
  if (!VerbMatches(r, a.verb)) return false;
  if (a.resource_request) {
    return GroupMatches(r, a.api_group) && ResourceMatches(r, a.resource, a.subresource) &&
           NameMatches(r, a.name);
  }
  return UrlMatches(r, a.path);
}

}  // namespace allot::apiserver::authz
