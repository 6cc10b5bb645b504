// Helpers private to the dra_validation*.cc files: Kubernetes' validateSlice / validateSet
// patterns and request-name references.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/validation.h"
#include "api/resource/types.h"

namespace allot::api::dra_internal {

// validateSlice: more than `max` entries is one TooMany error and nothing else (DoS guard);
// otherwise `item(entry, path)` runs for each entry. A max of 0 means unlimited.
template <class T, class F>
void ValidateSlice(const std::vector<T>& items, size_t max, const Path& p, FieldErrors& errs,
                   F item) {
  if (max > 0 && items.size() > max) {
    errs.TooMany(p, static_cast<int64_t>(items.size()), static_cast<int64_t>(max));
    return;
  }
  for (size_t i = 0; i < items.size(); ++i) item(items[i], p.Index(i));
}

// validateSet: validateSlice plus `Duplicate value` at the index of each repeated key.
template <class T, class F, class K>
void ValidateSet(const std::vector<T>& items, size_t max, const Path& p, FieldErrors& errs, F item,
                 K key) {
  if (max > 0 && items.size() > max) {
    errs.TooMany(p, static_cast<int64_t>(items.size()), static_cast<int64_t>(max));
    return;
  }
  for (size_t i = 0; i < items.size(); ++i) item(items[i], p.Index(i));
  std::set<std::string> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string k = key(items[i]);
    if (!seen.insert(k).second) errs.Duplicate(p.Index(i), k);
  }
}

// The claim's request names, each with its subrequest names (nullopt: no firstAvailable).
class RequestNames {
 public:
  explicit RequestNames(const DeviceClaim& claim);
  // "req" or "req/sub".
  bool Has(std::string_view ref) const;

 private:
  std::map<std::string, std::optional<std::set<std::string>>, std::less<>> names_;
};

// validateRequestNameRef.
void ValidateRequestNameRef(std::string_view ref, const Path& p, const RequestNames& names,
                            FieldErrors& errs);
void ValidateRequestNameRefs(const std::vector<std::string>& refs, const Path& p,
                             const RequestNames& names, FieldErrors& errs);

// CEL selectors: <= 32, each with a non-empty expression of at most 10 KiB, compiled with
// validators.device_selector when there is one.
void ValidateSelectors(const std::vector<DeviceSelector>& selectors, const Path& p,
                       const Validators& validators, FieldErrors& errs);

// Go's %q-free rendering of a list of backquoted names: "{`a`, `b`}".
std::string JoinSetFields(const std::vector<std::string>& fields);

}  // namespace allot::api::dra_internal
