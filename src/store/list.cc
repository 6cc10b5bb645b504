// Reads: Get, paged lists, lists at older revisions (store/store_impl.h).
#include "store/continue_token.h"
#include "store/encoded_object.h"
#include "store/store_impl.h"

namespace allot::store {

// --- reads ------------------------------------------------------------------------------------

Result<ObjectPtr> Store::Impl::Get(const ResourceInfo& r, std::string_view ns,
                                   std::string_view name) const {
  ObjectPtr found;
  {
    std::shared_lock lock(mu_);
    auto t = tables_.find(&r);
    if (t != tables_.end()) {
      auto o = t->second.find(ObjectKeyView{r.namespaced ? ns : std::string_view(), name});
      if (o != t->second.end()) found = o->second;
    }
  }
  if (!found) return NotFoundError(r.QualifiedResource(), name);
  return Materialize(r, found);  // outside the lock: an Event decodes here
}

Result<ListResult> Store::Impl::List(const ResourceInfo& r, const ListOptions& opts) const {
  uint64_t at_rv = opts.resource_version;
  std::string start_after;
  if (!opts.continue_token.empty()) {
    ALLOT_ASSIGN_OR_RETURN(ContinuePoint from, DecodeContinue(opts.continue_token));
    at_rv = from.rv;
    start_after = std::move(from.after);
  }
  ObjectFilter filter{&r, opts.namespace_, opts.label_selector, opts.field_selector};
  std::shared_lock lock(mu_);
  const uint64_t current = rv_.load();
  if (at_rv > current) {
    return Status(StatusCode::kTimeout, "Too large resource version: " + std::to_string(at_rv) +
                                            ", current: " + std::to_string(current));
  }
  static const Table kEmpty;
  auto t = tables_.find(&r);
  const Table* table = t == tables_.end() ? &kEmpty : &t->second;
  if (at_rv != 0 && at_rv < current) {
    if (at_rv < history_.evicted_rv()) {
      if (shared_) {
        // Older than this replica's history: etcd may still have it.
        lock.unlock();
        return ListFromBackend(r, opts, filter, at_rv, start_after);
      }
      if (!opts.continue_token.empty()) return ExpiredContinue();
      return Status(StatusCode::kExpired, "too old resource version: " + std::to_string(at_rv) +
                                              " (" + std::to_string(history_.evicted_rv() + 1) +
                                              ")");
    }
    // Rebuild the state as of at_rv by undoing newer events of this resource. The snapshot is
    // this list's own, with keys of its own (the older states it takes in are its own too):
    // the undos, which decode old states, need no lock.
    History::Table past;
    for (const auto& [key, obj] : *table) past.emplace_hint(past.end(), key.str(), obj);
    std::vector<History::TakenUndo> undos = history_.UndosAfter(at_rv, r);
    lock.unlock();
    ALLOT_RETURN_IF_ERROR(History::Undo(undos, r, past));
    return ListFrom(r, opts, filter, past, at_rv, start_after);
  }
  if (KeptEncoded(r)) {
    // Decoding every kept object under the lock would hold the committer back: copy the
    // index's (encoded, shared) objects and decode them without it. The copy holds the
    // objects its keys view.
    Table snapshot = *table;
    lock.unlock();
    return ListFrom(r, opts, filter, snapshot, current, start_after);
  }
  return ListFrom(r, opts, filter, *table, at_rv != 0 ? at_rv : current, start_after);
}

namespace {

// A key of the index (ObjectKeyView) or of a list's own snapshot (the ObjectKey string).
std::string KeyString(const ObjectKeyView& k) { return k.str(); }
const std::string& KeyString(const std::string& k) { return k; }
// Whether the key is in namespace `ns`.
bool KeyInNamespace(const ObjectKeyView& k, std::string_view ns) { return k.ns == ns; }
bool KeyInNamespace(const std::string& k, std::string_view ns) {
  return k.size() > ns.size() && k.compare(0, ns.size(), ns) == 0 && k[ns.size()] == '/';
}

}  // namespace

template <class T>
Result<ListResult> Store::Impl::ListFrom(const ResourceInfo& r, const ListOptions& opts,
                                         const ObjectFilter& filter, const T& table,
                                         uint64_t list_rv, const std::string& start_after) const {
  ListResult out;
  out.resource_version = list_rv;
  auto it = table.begin();
  std::string prefix;
  const bool one_namespace = r.namespaced && !opts.namespace_.empty();
  if (one_namespace) {
    prefix = opts.namespace_ + "/";
    it = table.lower_bound(prefix);
  }
  if (!start_after.empty()) it = table.upper_bound(std::max(start_after, prefix));
  for (; it != table.end(); ++it) {
    if (one_namespace && !KeyInNamespace(it->first, opts.namespace_)) break;
    ALLOT_ASSIGN_OR_RETURN(ObjectPtr obj, Materialize(r, it->second));
    if (!filter.Matches(r, *obj)) continue;
    if (opts.limit > 0 && static_cast<int64_t>(out.items.size()) == opts.limit) {
      out.continue_token = EncodeContinue(list_rv, KeyString(std::prev(it)->first));
      // As kube-apiserver: the count of what the next pages hold, known only when no selector
      // filters them (`it` is the first of them).
      if (opts.label_selector.Empty() && opts.field_selector.Empty()) {
        int64_t remaining = 0;
        for (; it != table.end(); ++it) {
          if (one_namespace && !KeyInNamespace(it->first, opts.namespace_)) break;
          ++remaining;
        }
        out.remaining_item_count = remaining;
      }
      break;
    }
    out.items.push_back(std::move(obj));
  }
  return out;
}

Result<ListResult> Store::Impl::ListFromBackend(const ResourceInfo& r, const ListOptions& opts,
                                                const ObjectFilter& filter, uint64_t at_rv,
                                                const std::string& start_after) const {
  const std::string resource_prefix = BackendKey(r, "");
  std::string object_prefix;
  if (r.namespaced && !opts.namespace_.empty()) object_prefix = opts.namespace_ + "/";
  ListResult out;
  out.resource_version = at_rv;
  std::string last_key;
  Status decoded;
  Status st = shared_->ListAt(
      resource_prefix + object_prefix, start_after.empty() ? "" : BackendKey(r, start_after), at_rv,
      [&](std::string_view key, std::string_view value, uint64_t rv) {
        const std::string object_key(key.substr(resource_prefix.size()));
        auto obj = DecodeStored(r, key, value, rv);
        if (!obj.ok()) {
          decoded = obj.status();
          return false;
        }
        if (filter.Matches(r, **obj)) {
          if (opts.limit > 0 && static_cast<int64_t>(out.items.size()) == opts.limit) {
            out.continue_token = EncodeContinue(at_rv, last_key);
            return false;
          }
          out.items.push_back(std::move(obj).value());
        }
        last_key = object_key;
        return true;
      });
  if (st.code() == StatusCode::kExpired) {
    if (!opts.continue_token.empty()) return ExpiredContinue();
    return Status(StatusCode::kExpired,
                  "too old resource version: " + std::to_string(at_rv) + " (" + st.message() + ")");
  }
  ALLOT_RETURN_IF_ERROR(st);
  ALLOT_RETURN_IF_ERROR(decoded);
  return out;
}

}  // namespace allot::store
