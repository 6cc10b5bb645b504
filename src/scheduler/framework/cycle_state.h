// CycleState: the data plugins share within one pod's scheduling attempt, with typed keys.
//
//   struct FitState { Resource request; };
//   const StateKey<FitState> kFitKey("PreFilterNodeResourcesFit");
//   state.Write(kFitKey, FitState{...});          // PreFilter
//   const FitState* s = state.Read(kFitKey);      // Filter (nullptr if PreFilter did not run)
//
// A key carries its value type, so reading never casts and never looks a string up: each key
// gets a small integer id when it is constructed (keys are namespace-scope constants), and the
// state is a vector indexed by that id.
//
// Lifetime: a CycleState is created when a pod is popped and lives until its binding cycle
// ends (Reserve state must survive into PreBind and Unreserve). Data that must survive across
// attempts belongs in the plugin, keyed by pod uid, not here.
//
// Thread safety: Write / Mutable / Delete only from the serial extension points (PreFilter,
// PostFilter, PreScore, Reserve, Permit, the binding cycle). Read may be called concurrently
// from Filter and Score, which run in parallel over nodes, as long as nobody writes.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace allot::scheduler {

class NodeInfo;

namespace internal {
int NextStateKeyId();
}  // namespace internal

// A key for values of type T (copyable, so the state can be cloned for preemption dry runs).
template <class T>
class StateKey {
 public:
  explicit StateKey(std::string_view name) : name_(name), id_(internal::NextStateKeyId()) {}
  std::string_view name() const { return name_; }
  int id() const { return id_; }

 private:
  std::string_view name_;
  int id_;
};

class CycleState {
 public:
  CycleState() = default;
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;

  template <class T>
  void Write(const StateKey<T>& key, T value) {
    Slot& s = SlotFor(key.id());
    s.value = std::make_shared<T>(std::move(value));
    s.clone = [](const void* p) -> std::shared_ptr<void> {
      return std::make_shared<T>(*static_cast<const T*>(p));
    };
  }
  // nullptr when nothing was written under the key.
  template <class T>
  const T* Read(const StateKey<T>& key) const {
    size_t i = static_cast<size_t>(key.id());
    return i < slots_.size() ? static_cast<const T*>(slots_[i].value.get()) : nullptr;
  }
  template <class T>
  T* Mutable(const StateKey<T>& key) {
    size_t i = static_cast<size_t>(key.id());
    return i < slots_.size() ? static_cast<T*>(slots_[i].value.get()) : nullptr;
  }
  template <class T>
  void Delete(const StateKey<T>& key) {
    size_t i = static_cast<size_t>(key.id());
    if (i < slots_.size()) slots_[i] = Slot{};
  }

  // A deep copy (each value copied), for dry runs that must not disturb the real state.
  std::unique_ptr<CycleState> Clone() const;

  // Nodes this pod sees differently from the snapshot: the Reservation plugin's PreFilter gives
  // an owner pod a copy of each node holding its reservations with their capacity released.
  // The scheduling algorithm hands the view to Filter and Score in place of the snapshot's
  // NodeInfo. Written in PreFilter only.
  void SetNodeView(const NodeInfo* original, std::shared_ptr<const NodeInfo> view);
  // The view of `original`, or `original` itself when there is none.
  const NodeInfo* NodeView(const NodeInfo* original) const {
    return node_views_.empty() ? original : FindNodeView(original);
  }

  // Framework bookkeeping for this cycle: which plugins returned Skip at PreFilter / PreScore
  // (indexes into the profile's Filter / Score plugin lists).
  std::vector<bool> skip_filter;
  std::vector<bool> skip_score;

 private:
  struct Slot {
    std::shared_ptr<void> value;
    std::shared_ptr<void> (*clone)(const void*) = nullptr;
  };
  Slot& SlotFor(int id) {
    size_t i = static_cast<size_t>(id);
    if (i >= slots_.size()) slots_.resize(i + 1);
    return slots_[i];
  }
  const NodeInfo* FindNodeView(const NodeInfo* original) const;

  std::vector<Slot> slots_;
  // Sorted by the original's address.
  std::vector<std::pair<const NodeInfo*, std::shared_ptr<const NodeInfo>>> node_views_;
};

}  // namespace allot::scheduler
