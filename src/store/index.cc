// Publishing committed batches to the index, history and watchers; lookups by uid
// (store/store_impl.h).
#include "common/log.h"
#include "store/encoded_object.h"
#include "store/store_impl.h"

namespace allot::store {

// --- publishing -------------------------------------------------------------------------------

ObjectPtr Store::Impl::ApplyToIndex(const Change& c) {
  Table& table = tables_[c.resource];
  auto unindex = [&](const ObjectPtr& o) {
    if (!o) return;
    by_uid_.erase(o->metadata.uid);
    for (const auto& ref : o->metadata.ownerReferences) {
      auto range = dependents_.equal_range(ref.uid);
      for (auto it = range.first; it != range.second; ++it) {
        if (it->second == o->metadata.uid) {
          dependents_.erase(it);
          break;
        }
      }
    }
  };
  auto it = table.find(c.key);
  if (it != table.end()) unindex(it->second);  // before the old version may be freed
  if (c.object) {
    ObjectPtr stored = KeptEncoded(*c.resource) && !EncodedObject::Of(*c.object)
                           ? EncodedObject::Make(*c.object)
                           : c.object;
    // The key views the stored object: a replaced one may be freed once nothing else holds it.
    const ObjectKeyView key{
        c.resource->namespaced ? std::string_view(stored->metadata.namespace_) : "",
        stored->metadata.name};
    auto node = it;
    if (node != table.end()) {
      node->second = stored;
      node->first.ns = key.ns;
      node->first.name = key.name;
    } else {
      node = table.emplace_hint(table.lower_bound(key), key, stored);
    }
    const std::string_view uid = stored->metadata.uid;
    by_uid_.erase(uid);  // a stale entry's key may point into another object
    by_uid_.emplace(uid, std::make_pair(c.resource, &node->first));
    for (const auto& ref : stored->metadata.ownerReferences) {
      dependents_.emplace(std::string_view(ref.uid), uid);
    }
    return stored;
  }
  if (it != table.end()) table.erase(it);
  return nullptr;
}

void Store::Impl::Publish(std::vector<Change>& changes) {
  std::vector<std::shared_ptr<WatcherImpl>> to_notify;
  {
    std::unique_lock lock(mu_);
    for (const Change& c : changes) {
      ObjectPtr before;
      {
        auto t = tables_.find(c.resource);
        if (t != tables_.end()) {
          auto o = t->second.find(c.key);
          if (o != t->second.end()) before = o->second;
        }
      }
      EventType type =
          !c.object ? EventType::kDeleted : (before ? EventType::kModified : EventType::kAdded);
      ObjectPtr stored = ApplyToIndex(c);
      // The history names what the index holds (`stored`, and `before`), so that it can tell
      // a current version from a replaced one; for DELETED, the last state.
      history_.Record(*c.resource, type, c.object ? stored : c.prev, before, c.rv);
      if (watchers_.empty()) continue;
      // Watchers see decoded objects: the written one, and the one it replaced (for a
      // selection it may leave), which for a kind kept encoded the writer decoded already.
      const ObjectPtr& obj = c.object ? c.object : c.prev;
      ObjectPtr replaced = before;
      if (before && EncodedObject::Of(*before)) {
        replaced = c.prev && !EncodedObject::Of(*c.prev) ? c.prev : Decoded(*c.resource, before);
      }
      for (auto& w : watchers_) {
        if (w->Offer(*c.resource, type, obj, replaced, c.rv)) to_notify.push_back(w);
      }
    }
    rv_ = changes.back().rv;
    for (auto& w : watchers_) w->SetProgress(rv_);
    watchers_.erase(std::remove_if(watchers_.begin(), watchers_.end(),
                                   [](const auto& w) { return w->ended(); }),
                    watchers_.end());
  }
  std::sort(to_notify.begin(), to_notify.end());
  to_notify.erase(std::unique(to_notify.begin(), to_notify.end()), to_notify.end());
  for (auto& w : to_notify) w->Notify();
}

std::vector<std::pair<const ResourceInfo*, ObjectPtr>> Store::Impl::Dependents(
    std::string_view uid) const {
  std::vector<std::pair<const ResourceInfo*, ObjectPtr>> out;
  std::shared_lock lock(mu_);
  auto range = dependents_.equal_range(uid);
  for (auto it = range.first; it != range.second; ++it) {
    auto u = by_uid_.find(it->second);
    if (u == by_uid_.end()) continue;
    auto t = tables_.find(u->second.first);
    if (t == tables_.end()) continue;
    auto o = t->second.find(*u->second.second);
    if (o == t->second.end()) continue;
    if (ObjectPtr obj = Decoded(*u->second.first, o->second)) {
      out.emplace_back(u->second.first, std::move(obj));
    }
  }
  return out;
}

std::pair<const ResourceInfo*, ObjectPtr> Store::Impl::FindByUid(std::string_view uid) const {
  std::shared_lock lock(mu_);
  auto u = by_uid_.find(uid);
  if (u == by_uid_.end()) return {nullptr, nullptr};
  auto t = tables_.find(u->second.first);
  if (t == tables_.end()) return {nullptr, nullptr};
  auto o = t->second.find(*u->second.second);
  if (o == t->second.end()) return {nullptr, nullptr};
  ObjectPtr obj = Decoded(*u->second.first, o->second);
  if (!obj) return {nullptr, nullptr};
  return {u->second.first, std::move(obj)};
}

Store::Stats Store::Impl::GetStats() const {
  Stats s;
  s.writes = writes_.load();
  s.batches = batches_.load();
  std::shared_lock lock(mu_);
  s.watchers = watchers_.size();
  return s;
}

}  // namespace allot::store
