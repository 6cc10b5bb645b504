// OwnerIndex: the Available reservations, indexed by what their owners name, so finding the
// reservations a pod may use costs a few map lookups per pod instead of a scan of every
// reservation (Koordinator #3032: with thousands of reservations the scan dominated).
//
// Each owner entry is filed under its most selective field: an object's uid, else its
// namespace/name; a controller's uid; else the first matchLabels pair of its selector. Entries
// with none of those (only matchExpressions, or an empty selector) go to a short list every
// pod checks. Candidates() returns a superset; callers confirm with api::ReservationOwnerMatcher.
//
// Thread safety: Set / Remove from informer threads, Candidates from the scheduling thread; one
// mutex, held for the lookups only.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/core/types.h"
#include "scheduler/framework/reservation_info.h"
#include "scheduler/plugins/reservation/matching.h"

namespace allot::scheduler::reservation {

// A reservation as the index hands it out: its info and its parsed owners.
struct IndexedReservation {
  ReservationInfoPtr info;
  api::ReservationOwnerMatcher owners;
};
using IndexedReservationPtr = std::shared_ptr<const IndexedReservation>;

class OwnerIndex {
 public:
  // Adds or replaces the reservation (by uid).
  void Set(ReservationInfoPtr info);
  void Remove(std::string_view uid);
  // The reservations whose owners may match `pod` (appended to `out`, each once).
  void Candidates(const api::Pod& pod, std::vector<IndexedReservationPtr>& out) const;
  size_t size() const;

 private:
  using List = std::vector<IndexedReservationPtr>;
  // Where an entry is filed: kind + key (+ value for labels).
  enum class Kind : uint8_t { kObjectUid, kObjectName, kControllerUid, kLabel, kScan };
  struct Key {
    Kind kind;
    std::string key;
    std::string value;
  };
  static Key KeyOf(const api::ReservationOwnerMatcher::Entry& e);
  void File(const Key& k, const IndexedReservationPtr& r);
  void Unfile(const Key& k, std::string_view uid);
  void RemoveLocked(std::string_view uid);

  mutable std::mutex mu_;
  std::map<std::string, std::pair<IndexedReservationPtr, std::vector<Key>>, std::less<>> by_uid_;
  std::map<std::string, List, std::less<>> object_uid_;
  std::map<std::string, List, std::less<>> object_name_;  // "namespace/name"
  std::map<std::string, List, std::less<>> controller_uid_;
  std::map<std::string, std::map<std::string, List, std::less<>>, std::less<>> label_;
  List scan_;
};

}  // namespace allot::scheduler::reservation
