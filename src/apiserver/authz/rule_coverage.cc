#include "apiserver/authz/rule_coverage.h"

#include <algorithm>
#include <string_view>

#include "api/machinery/validation.h"

namespace allot::apiserver::authz {

namespace {

constexpr std::string_view kAll = "*";

bool Has(const std::vector<std::string>& set, std::string_view v) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

bool HasAll(const std::vector<std::string>& set, const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(),
                     [&](const std::string& w) { return Has(set, w); });
}

bool ResourcesCover(const std::vector<std::string>& owner, const std::vector<std::string>& wanted) {
  if (Has(owner, kAll)) return true;
  for (const std::string& r : wanted) {
    if (Has(owner, r)) continue;
    const size_t slash = r.find('/');
    if (slash == std::string::npos) return false;
    // "*/sub" covers the subresource "sub" of every resource.
    if (!Has(owner, "*" + r.substr(slash))) return false;
  }
  return true;
}

bool UrlCovers(std::string_view owner, std::string_view url) {
  if (owner == url) return true;
  if (!owner.ends_with('*')) return false;
  const size_t last = owner.find_last_not_of('*');  // the prefix is the owner without its stars
  return url.starts_with(last == std::string_view::npos ? std::string_view()
                                                        : owner.substr(0, last + 1));
}

bool UrlsCover(const std::vector<std::string>& owner, const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(), [&](const std::string& url) {
    return std::any_of(owner.begin(), owner.end(),
                       [&](const std::string& o) { return UrlCovers(o, url); });
  });
}

bool NamesCover(const std::vector<std::string>& owner, const std::vector<std::string>& wanted) {
  if (owner.empty()) return true;
  return !wanted.empty() && HasAll(owner, wanted);
}

// `owner` (any rule) covers `atom` (one of BreakdownRule's).
bool RuleCovers(const PolicyRule& owner, const PolicyRule& atom) {
  return (Has(owner.verbs, kAll) || HasAll(owner.verbs, atom.verbs)) &&
         (Has(owner.apiGroups, kAll) || HasAll(owner.apiGroups, atom.apiGroups)) &&
         ResourcesCover(owner.resources, atom.resources) &&
         NamesCover(owner.resourceNames, atom.resourceNames) &&
         UrlsCover(owner.nonResourceURLs, atom.nonResourceURLs);
}

// A rule CompactRules may merge with others of the same group, resource and name.
bool IsSimpleResourceRule(const PolicyRule& r) {
  return r.apiGroups.size() == 1 && r.resources.size() == 1 && r.resourceNames.size() <= 1 &&
         r.nonResourceURLs.empty();
}

}  // namespace

std::vector<PolicyRule> BreakdownRule(const PolicyRule& rule) {
  std::vector<PolicyRule> atoms;
  for (const std::string& group : rule.apiGroups) {
    for (const std::string& resource : rule.resources) {
      for (const std::string& verb : rule.verbs) {
        PolicyRule atom;
        atom.verbs = {verb};
        atom.apiGroups = {group};
        atom.resources = {resource};
        if (rule.resourceNames.empty()) {
          atoms.push_back(std::move(atom));
          continue;
        }
        for (const std::string& name : rule.resourceNames) {
          PolicyRule named = atom;
          named.resourceNames = {name};
          atoms.push_back(std::move(named));
        }
      }
    }
  }
  for (const std::string& url : rule.nonResourceURLs) {
    for (const std::string& verb : rule.verbs) {
      PolicyRule atom;
      atom.verbs = {verb};
      atom.nonResourceURLs = {url};
      atoms.push_back(std::move(atom));
    }
  }
  return atoms;
}

bool Covers(const std::vector<PolicyRule>& owner, const std::vector<PolicyRule>& servant,
            std::vector<PolicyRule>* uncovered) {
  bool all = true;
  for (const PolicyRule& rule : servant) {
    for (PolicyRule& atom : BreakdownRule(rule)) {
      const bool covered = std::any_of(owner.begin(), owner.end(),
                                       [&](const PolicyRule& o) { return RuleCovers(o, atom); });
      if (covered) continue;
      all = false;
      if (!uncovered) return false;
      uncovered->push_back(std::move(atom));
    }
  }
  return all;
}

std::vector<PolicyRule> CompactRules(const std::vector<PolicyRule>& rules) {
  std::vector<PolicyRule> out;
  std::vector<PolicyRule> merged;  // simple rules, one per group/resource/name
  for (const PolicyRule& r : rules) {
    if (!IsSimpleResourceRule(r)) {
      out.push_back(r);
      continue;
    }
    auto same = std::find_if(merged.begin(), merged.end(), [&](const PolicyRule& m) {
      return m.apiGroups == r.apiGroups && m.resources == r.resources &&
             m.resourceNames == r.resourceNames;
    });
    if (same == merged.end()) {
      merged.push_back(r);
    } else {
      same->verbs.insert(same->verbs.end(), r.verbs.begin(), r.verbs.end());
    }
  }
  out.insert(out.end(), merged.begin(), merged.end());
  return out;
}

std::string CompactString(const PolicyRule& r) {
  std::string out = "{";
  auto field = [&](std::string_view name, const std::vector<std::string>& values) {
    if (values.empty()) return;
    if (out.size() > 1) out += ", ";
    out.append(name).push_back(':');
    out += api::GoQuotedList(values);
  };
  field("APIGroups", r.apiGroups);
  field("Resources", r.resources);
  field("NonResourceURLs", r.nonResourceURLs);
  field("ResourceNames", r.resourceNames);
  field("Verbs", r.verbs);
  return out + "}";
}

}  // namespace allot::apiserver::authz
