#include "scheduler/plugins/reservation/owner_index.h"

#include <algorithm>

namespace allot::scheduler::reservation {

namespace {

void Append(const std::vector<IndexedReservationPtr>* list,
            std::vector<IndexedReservationPtr>& out) {
  if (!list) return;
  for (const IndexedReservationPtr& r : *list) {
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
}

template <class M, class K>
const typename M::mapped_type* Find(const M& m, const K& k) {
  auto it = m.find(k);
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

OwnerIndex::Key OwnerIndex::KeyOf(const api::ReservationOwnerMatcher::Entry& e) {
  if (e.object && !e.object->uid.empty()) return {Kind::kObjectUid, e.object->uid, ""};
  if (e.object && !e.object->name.empty()) {
    return {Kind::kObjectName, e.object->namespace_ + "/" + e.object->name, ""};
  }
  if (e.controller && !e.controller->uid.empty()) {
    return {Kind::kControllerUid, e.controller->uid, ""};
  }
  if (e.selector) {
    // The first exact requirement: key=value or key in (value).
    for (const api::LabelRequirement& req : e.selector->requirements()) {
      if (auto v = e.selector->ExactMatch(req.key)) return {Kind::kLabel, req.key, *v};
    }
  }
  return {Kind::kScan, "", ""};
}

void OwnerIndex::File(const Key& k, const IndexedReservationPtr& r) {
  switch (k.kind) {
    case Kind::kObjectUid:
      object_uid_[k.key].push_back(r);
      break;
    case Kind::kObjectName:
      object_name_[k.key].push_back(r);
      break;
    case Kind::kControllerUid:
      controller_uid_[k.key].push_back(r);
      break;
    case Kind::kLabel:
      label_[k.key][k.value].push_back(r);
      break;
    case Kind::kScan:
      scan_.push_back(r);
      break;
  }
}

void OwnerIndex::Unfile(const Key& k, std::string_view uid) {
  auto drop = [&](List& l) {
    l.erase(std::remove_if(l.begin(), l.end(),
                           [&](const IndexedReservationPtr& r) { return r->info->uid == uid; }),
            l.end());
  };
  auto drop_in = [&](auto& m, const std::string& key) {
    auto it = m.find(key);
    if (it == m.end()) return;
    drop(it->second);
    if (it->second.empty()) m.erase(it);
  };
  switch (k.kind) {
    case Kind::kObjectUid:
      drop_in(object_uid_, k.key);
      break;
    case Kind::kObjectName:
      drop_in(object_name_, k.key);
      break;
    case Kind::kControllerUid:
      drop_in(controller_uid_, k.key);
      break;
    case Kind::kLabel: {
      auto it = label_.find(k.key);
      if (it == label_.end()) break;
      drop_in(it->second, k.value);
      if (it->second.empty()) label_.erase(it);
      break;
    }
    case Kind::kScan:
      drop(scan_);
      break;
  }
}

void OwnerIndex::Set(ReservationInfoPtr info) {
  auto r = std::make_shared<IndexedReservation>();
  r->owners = api::ReservationOwnerMatcher::Make(*info->object);
  r->info = std::move(info);
  std::vector<Key> keys;
  for (const api::ReservationOwnerMatcher::Entry& e : r->owners.entries()) {
    Key k = KeyOf(e);
    bool dup = false;
    for (const Key& o : keys) dup |= o.kind == k.kind && o.key == k.key && o.value == k.value;
    if (!dup) keys.push_back(std::move(k));
  }
  std::lock_guard<std::mutex> lock(mu_);
  RemoveLocked(r->info->uid);
  for (const Key& k : keys) File(k, r);
  by_uid_[r->info->uid] = {r, std::move(keys)};
}

void OwnerIndex::Remove(std::string_view uid) {
  std::lock_guard<std::mutex> lock(mu_);
  RemoveLocked(uid);
}

void OwnerIndex::RemoveLocked(std::string_view uid) {
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end()) return;
  for (const Key& k : it->second.second) Unfile(k, uid);
  by_uid_.erase(it);
}

void OwnerIndex::Candidates(const api::Pod& pod, std::vector<IndexedReservationPtr>& out) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (by_uid_.empty()) return;
  Append(&scan_, out);
  if (!object_uid_.empty()) Append(Find(object_uid_, pod.metadata.uid), out);
  if (!object_name_.empty()) {
    Append(Find(object_name_, pod.metadata.namespace_ + "/" + pod.metadata.name), out);
    Append(Find(object_name_, "/" + pod.metadata.name), out);  // no namespace named
  }
  if (!controller_uid_.empty()) {
    for (const api::OwnerReference& ref : pod.metadata.ownerReferences) {
      Append(Find(controller_uid_, ref.uid), out);
    }
  }
  if (!label_.empty()) {
    for (const auto& [k, v] : pod.metadata.labels) {
      auto byk = label_.find(k);
      if (byk != label_.end()) Append(Find(byk->second, v), out);
    }
  }
}

size_t OwnerIndex::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_uid_.size();
}

}  // namespace allot::scheduler::reservation
