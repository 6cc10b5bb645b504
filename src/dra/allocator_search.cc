// Search: setup, the depth-first search over requests and devices, and the outcome.
#include "dra/allocator_search.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace allot::dra {

constexpr char kCannotAllocate[] = "cannot allocate all claims";

Search::Search(const Allocator::Impl& impl, const api::Node& node, const AllocatedState& in_use,
               const HeldDevices* held, bool build_results)
    : build_results_(build_results),
      impl_(impl),
      inv_(*impl.inventory),
      node_(node),
      in_use_(in_use),
      held_(held && (!held->devices.empty() || held->restricted || !held->taken.empty())
                ? held
                : nullptr) {}

Allocator::Outcome Search::Run() {
  if (!Prepare() || !Feasible(0) || !ChooseAlternatives(0)) return Failure();
  return Success();
}

// --- setup -------------------------------------------------------------------------------------

bool Search::Prepare() {
  const Features& f = impl_.features;
  results_.assign(impl_.claims.size(), 0);
  chosen_.assign(impl_.requests.size(), kNone);
  cons_.assign(impl_.constraints.size(), ConState{});
  inv_.DevicesForNode(node_, reachable_);
  locals_.resize(reachable_.size());
  for (size_t p = 0; p < reachable_.size(); ++p) {
    Local& l = locals_[p];
    l.global = reachable_[p];
    const api::Device& d = *inv_.device(l.global).device;
    l.shared = f.consumable_capacity && d.allowMultipleAllocations.value_or(false);
    l.counters = f.partitionable_devices && !inv_.info(l.global).counters.empty();
    l.prior_share = l.shared && in_use_.ShareCount(l.global) > 0;
    l.taken = held_ && std::binary_search(held_->taken.begin(), held_->taken.end(), l.global);
    l.held = held_ && !l.shared && !l.taken &&
             std::binary_search(held_->devices.begin(), held_->devices.end(), l.global);
    l.reserved =
        l.held || (held_ && held_->restricted &&
                   std::binary_search(held_->reserved.begin(), held_->reserved.end(), l.global));
  }
  claim_picks_.assign(reachable_.size() * impl_.claims.size(), 0);
  for (const Alternative& a : impl_.alternatives) has_all_ = has_all_ || a.all;
  if (has_all_) incomplete_pool_ = inv_.IncompletePoolForNode(node_);
  for (const Alternative& a : impl_.alternatives) {
    if (!a.all || !incomplete_pool_) continue;
    detail_ = "claim " + impl_.claims[impl_.requests[a.request].claim].label + ", request " +
              a.name + ": asks for all devices, but resource pool " + *incomplete_pool_ +
              " is currently being updated";
    break;
  }
  BuildAltStates();
  if (!CheckResultLimits()) return false;
  BuildOrder();
  return true;
}

void Search::BuildAltStates() {
  alts_.assign(impl_.alternatives.size(), AltState{});
  for (uint32_t a = 0; a < impl_.alternatives.size(); ++a) {
    const Alternative& alt = impl_.alternatives[a];
    // Alternatives with the same candidates, admin and All flags share one state (a linear
    // scan: a pod has few alternatives, and this runs for every node).
    uint32_t same = a;
    for (uint32_t b = 0; b < a && same == a; ++b) {
      const Alternative& o = impl_.alternatives[b];
      if (o.candidates == alt.candidates && o.admin == alt.admin && o.all == alt.all) same = b;
    }
    if (same != a) {
      alts_[a] = alts_[same];
      continue;
    }
    const CandidateSet& set = *impl_.sets[alt.candidates];
    AltState& st = alts_[a];
    st.list.reserve(reachable_.size());
    st.amounts.reserve(reachable_.size());
    bool serves = false;  // the pod's reservation holds a candidate of this alternative
    for (uint32_t p = 0; p < reachable_.size(); ++p) {
      Local& l = locals_[p];
      if (!set.Has(l.global)) continue;
      serves = serves || l.reserved;
      const bool usable = alt.admin || l.held ||
                          (!l.taken && (l.shared ? !in_use_.IsExclusivelyAllocated(l.global)
                                                 : !in_use_.IsInUse(l.global)));
      if (!usable) {
        st.blocked = true;  // only matters for All
        continue;
      }
      st.list.push_back(p);
      st.amounts.push_back(l.shared ? set.Share(l.global) : nullptr);
      if (l.shared && l.share_slot == kNone) {
        l.share_slot = static_cast<uint32_t>(remaining_.size());
        std::vector<api::Quantity>& rem = remaining_.emplace_back();
        const api::Device& d = *inv_.device(l.global).device;
        const std::map<std::string, api::Quantity>* used = in_use_.ConsumedCapacity(l.global);
        for (const auto& [name, cap] : d.capacity) {
          rem.push_back(cap.value);
          if (used == nullptr) continue;
          auto u = used->find(name);
          if (u != used->end()) rem.back().Sub(u->second);
        }
      }
    }
    if (held_ && !alt.admin && serves) ApplyHeld(st);
    if (!alt.admin && alt.all) continue;
    st.blocked = false;  // in-use devices only block "All" without adminAccess
  }
}

void Search::ApplyHeld(AltState& st) {
  std::vector<uint32_t> held, other;
  std::vector<const std::vector<api::Quantity>*> held_amounts, other_amounts;
  for (size_t k = 0; k < st.list.size(); ++k) {
    const bool h = locals_[st.list[k]].held;
    (h ? held : other).push_back(st.list[k]);
    (h ? held_amounts : other_amounts).push_back(st.amounts[k]);
  }
  if (held_->restricted) {
    if (!other.empty()) st.blocked = true;  // "All" cannot have the devices it may not take
    other.clear();
    other_amounts.clear();
  }
  held.insert(held.end(), other.begin(), other.end());
  held_amounts.insert(held_amounts.end(), other_amounts.begin(), other_amounts.end());
  st.list = std::move(held);
  st.amounts = std::move(held_amounts);
}

int64_t Search::Need(uint32_t alt) const {
  const Alternative& a = impl_.alternatives[alt];
  return a.all ? static_cast<int64_t>(alts_[alt].list.size()) : a.count;
}

bool Search::CheckResultLimits() {
  for (const ClaimInfo& claim : impl_.claims) {
    int64_t total = 0;
    for (uint32_t r : claim.requests) {
      int64_t least = INT64_MAX;
      for (uint32_t a : impl_.requests[r].alternatives) least = std::min(least, Need(a));
      total += least;
    }
    if (total > static_cast<int64_t>(kMaxResultsPerClaim)) {
      detail_ = "claim " + claim.label + ": number of requested devices " + std::to_string(total) +
                " exceeds the claim limit of " + std::to_string(kMaxResultsPerClaim);
      limit_exceeded_ = true;
      return false;
    }
  }
  return true;
}

void Search::BuildOrder() {
  std::vector<uint32_t> all, first_available, exact;
  fixed_.assign(impl_.requests.size(), kNone);
  for (uint32_t r = 0; r < impl_.requests.size(); ++r) {
    const Request& req = impl_.requests[r];
    if (req.alternatives.size() == 1) fixed_[r] = req.alternatives[0];
    if (req.first_available) {
      first_available.push_back(r);
    } else if (impl_.alternatives[req.alternatives[0]].all) {
      all.push_back(r);
    } else {
      exact.push_back(r);
    }
  }
  auto slack = [&](uint32_t r) {
    uint32_t a = impl_.requests[r].alternatives[0];
    return static_cast<int64_t>(alts_[a].list.size()) - impl_.alternatives[a].count;
  };
  std::stable_sort(exact.begin(), exact.end(),
                   [&](uint32_t x, uint32_t y) { return slack(x) < slack(y); });
  first_available_ = first_available;
  order_ = std::move(all);
  order_.insert(order_.end(), first_available.begin(), first_available.end());
  order_.insert(order_.end(), exact.begin(), exact.end());
  last_pos_.assign(impl_.claims.size(), 0);
  for (size_t pos = 0; pos < order_.size(); ++pos) {
    last_pos_[impl_.requests[order_[pos]].claim] = pos;
  }
}

// --- search ------------------------------------------------------------------------------------

bool Search::Step() {
  if (++steps_ > impl_.max_steps) aborted_ = true;
  return !aborted_;
}

bool Search::WithinResultLimit(uint32_t claim) const {
  int64_t total = 0;
  for (uint32_t r : impl_.claims[claim].requests) {
    if (fixed_[r] != kNone) {
      total += Need(fixed_[r]);
      continue;
    }
    int64_t least = INT64_MAX;
    for (uint32_t a : impl_.requests[r].alternatives) least = std::min(least, Need(a));
    total += least;
  }
  return total <= static_cast<int64_t>(kMaxResultsPerClaim);
}

// Fixes the alternative of firstAvailable request k, k+1, ... in preference order, then runs
// the device search.
bool Search::ChooseAlternatives(size_t k) {
  if (k == first_available_.size()) return SolveFrom(0);
  const uint32_t r = first_available_[k];
  const Request& req = impl_.requests[r];
  for (uint32_t a : req.alternatives) {
    if (!Step()) return false;
    fixed_[r] = a;
    if (!WithinResultLimit(req.claim)) {
      if (detail_.empty()) {
        detail_ = "claim " + impl_.claims[req.claim].label +
                  ": number of requested devices exceeds the claim limit of " +
                  std::to_string(kMaxResultsPerClaim);
      }
      continue;
    }
    if (Feasible(0) && ChooseAlternatives(k + 1)) return true;
    if (aborted_) return false;
  }
  fixed_[r] = kNone;
  return false;
}

bool Search::SolveFrom(size_t pos) {
  if (pos == order_.size()) return true;
  const bool memo = classes_ready_ && pos > 0;
  std::pair<uint64_t, uint64_t> key;
  if (memo) {
    key = StateKey(pos);
    if (memo_.count(key)) return false;
  }
  const uint32_t r = order_[pos];
  if (pos == 0 || failures_ == 0 || Feasible(pos)) {
    chosen_[r] = fixed_[r];
    if (SolveAlternative(pos, fixed_[r])) return true;
    if (aborted_) return false;
  }
  chosen_[r] = kNone;
  ++failures_;
  EnsureClasses();
  if (pos > 0) memo_.insert(memo ? key : StateKey(pos));
  return false;
}

bool Search::SolveAlternative(size_t pos, uint32_t alt) {
  if (impl_.alternatives[alt].all) return PickAll(pos, alt);
  return Branch(pos, alt, 0);
}

bool Search::InScope(uint32_t con, uint32_t alt) const {
  const std::vector<uint8_t>& s = impl_.constraints[con].in_scope;
  return alt < s.size() && s[alt];
}

int32_t Search::ValueOf(uint32_t con, uint32_t local) const {
  return impl_.constraints[con].values->id[locals_[local].global];
}

// Value-first matchAttribute: binds each unbound in-scope matchAttribute constraint to one value
// after the other, then picks devices.
bool Search::Branch(size_t pos, uint32_t alt, size_t next_constraint) {
  const uint32_t claim = impl_.requests[impl_.alternatives[alt].request].claim;
  const std::vector<uint32_t>& cons = impl_.claims[claim].constraints;
  size_t k = next_constraint;
  while (k < cons.size() &&
         !(impl_.constraints[cons[k]].match && InScope(cons[k], alt) && cons_[cons[k]].value < 0)) {
    ++k;
  }
  if (k == cons.size()) return PickCount(pos, alt, 0, 0);
  const uint32_t con = cons[k];
  const AltState& st = alts_[alt];
  const int64_t need = impl_.alternatives[alt].count;
  // Candidate values in preference order, with the number of usable devices having each.
  std::vector<std::pair<int32_t, int64_t>> values;
  std::unordered_map<int32_t, size_t> slot;
  for (uint32_t i = 0; i < st.list.size(); ++i) {
    const int32_t v = ValueOf(con, st.list[i]);
    if (v < 0 || !RelaxedUsable(alt, i)) continue;
    auto [it, added] = slot.try_emplace(v, values.size());
    if (added) values.emplace_back(v, 0);
    ++values[it->second].second;
  }
  for (const auto& [value, count] : values) {
    if (count < need) continue;
    ConState& cs = cons_[con];
    cs.value = value;
    ++cs.pins;
    const bool ok = (values.size() == 1 || Feasible(pos)) && Branch(pos, alt, k + 1);
    --cs.pins;
    if (cs.pins == 0 && cs.count == 0) cs.value = -1;
    if (ok) return true;
    if (aborted_) return false;
  }
  return false;
}

bool Search::PickAll(size_t pos, uint32_t alt) {
  const AltState& st = alts_[alt];
  if (st.blocked || st.list.empty()) return false;
  if (incomplete_pool_) return false;  // detail_ says so (Prepare)
  size_t done = 0;
  bool ok = true;
  for (uint32_t i = 0; i < st.list.size(); ++i) {
    if (!Step() || !CanPick(alt, i)) {
      ok = false;
      break;
    }
    DoPick(alt, i);
    ++done;
  }
  if (ok && SolveFrom(pos + 1)) return true;
  for (; done > 0; --done) UndoPick();
  return false;
}

const std::vector<uint32_t>* Search::Positions(uint32_t alt) {
  const uint32_t claim = impl_.requests[impl_.alternatives[alt].request].claim;
  for (uint32_t con : impl_.claims[claim].constraints) {
    if (!impl_.constraints[con].match || !InScope(con, alt) || cons_[con].value < 0) continue;
    AltState& st = alts_[alt];
    auto it = std::find_if(st.by_value.begin(), st.by_value.end(),
                           [&](const auto& e) { return e.first == con; });
    if (it == st.by_value.end()) {
      st.by_value.emplace_back(con, std::unordered_map<int32_t, std::vector<uint32_t>>());
      it = std::prev(st.by_value.end());
      for (uint32_t i = 0; i < st.list.size(); ++i) {
        const int32_t v = ValueOf(con, st.list[i]);
        if (v >= 0) it->second[v].push_back(i);
      }
    }
    static const std::vector<uint32_t> kNoPositions;
    auto v = it->second.find(cons_[con].value);
    return v == it->second.end() ? &kNoPositions : &v->second;
  }
  return nullptr;
}

// Picks devices picked..count-1 of `alt` from list positions >= start (combinations only).
bool Search::PickCount(size_t pos, uint32_t alt, int64_t picked, size_t start) {
  const int64_t need = impl_.alternatives[alt].count;
  if (picked == need) return SolveFrom(pos + 1);
  const AltState& st = alts_[alt];
  const std::vector<uint32_t>* positions = Positions(alt);
  const size_t end = positions ? positions->size() : st.list.size();
  size_t k = 0;
  if (positions) {
    k = static_cast<size_t>(std::lower_bound(positions->begin(), positions->end(), start) -
                            positions->begin());
  } else {
    k = start;
  }
  const uint64_t level = ++level_;
  for (; k < end; ++k) {
    if (static_cast<int64_t>(end - k) < need - picked) break;
    const uint32_t i = positions ? (*positions)[k] : static_cast<uint32_t>(k);
    const uint32_t l = st.list[i];
    // Taken by an exclusive pick: not worth a step (exclusive alternatives only).
    if (locals_[l].picks > 0 && !impl_.alternatives[alt].admin) continue;
    if (!Step()) return false;
    if (classes_ready_ && locals_[l].picks == 0 && tried_[locals_[l].cls] == level) continue;
    if (!CanPick(alt, i)) continue;
    DoPick(alt, i);
    if (PickCount(pos, alt, picked + 1, i + 1)) return true;
    UndoPick();
    if (aborted_) return false;
    EnsureClasses();
    if (locals_[l].picks == 0) tried_[locals_[l].cls] = level;
  }
  return false;
}

api::Quantity& Search::CounterLeft(CounterIndex c) {
  auto it = counter_left_.find(c);
  if (it == counter_left_.end()) {
    api::Quantity left = inv_.counter(c).capacity;
    if (const api::Quantity* used = in_use_.ConsumedCounterAt(c)) left.Sub(*used);
    it = counter_left_.emplace(c, std::move(left)).first;
  }
  return it->second;
}

bool Search::CanPick(uint32_t alt, uint32_t list_pos) {
  if (!RelaxedUsable(alt, list_pos)) return false;
  const Local& d = locals_[alts_[alt].list[list_pos]];
  if (!d.counters || impl_.alternatives[alt].admin || d.held) return true;
  if (d.shared && (d.prior_share || d.shares > 0)) return true;  // counters consumed already
  for (const Inventory::CounterUse& cu : inv_.info(d.global).counters) {
    if (CounterLeft(cu.counter) < cu.amount) return false;
  }
  return true;
}

void Search::DoPick(uint32_t alt, uint32_t list_pos) {
  const Alternative& a = impl_.alternatives[alt];
  const AltState& st = alts_[alt];
  const uint32_t l = st.list[list_pos];
  const uint32_t claim = impl_.requests[a.request].claim;
  Local& d = locals_[l];
  bool counted = false;
  if (d.shared) {
    if (const std::vector<api::Quantity>* amounts = st.amounts[list_pos]) {
      std::vector<api::Quantity>& rem = remaining_[d.share_slot];
      for (size_t j = 0; j < rem.size() && j < amounts->size(); ++j) rem[j].Sub((*amounts)[j]);
    }
    counted = d.counters && !a.admin && !d.prior_share && d.shares == 0;
    ++d.shares;
  } else {
    ++d.picks;
    ++claim_picks_[l * impl_.claims.size() + claim];
    counted = d.counters && !a.admin && !d.held;
  }
  if (counted) {
    for (const Inventory::CounterUse& cu : inv_.info(d.global).counters) {
      CounterLeft(cu.counter).Sub(cu.amount);
    }
  }
  for (uint32_t con : impl_.claims[claim].constraints) {
    if (!InScope(con, alt)) continue;
    const int32_t v = ValueOf(con, l);
    ConState& cs = cons_[con];
    if (impl_.constraints[con].match) {
      if (cs.value < 0) cs.value = v;
      ++cs.count;
    } else {
      if (cs.used.empty()) cs.used.assign(impl_.constraints[con].values->values.size(), 0);
      ++cs.used[v];
    }
  }
  picks_.push_back(PickRec{alt, l, claim, list_pos, counted});
  ++results_[claim];
}

void Search::UndoPick() {
  const PickRec rec = picks_.back();
  picks_.pop_back();
  --results_[rec.claim];
  Local& d = locals_[rec.local];
  for (uint32_t con : impl_.claims[rec.claim].constraints) {
    if (!InScope(con, rec.alt)) continue;
    ConState& cs = cons_[con];
    if (impl_.constraints[con].match) {
      if (--cs.count == 0 && cs.pins == 0) cs.value = -1;
    } else {
      --cs.used[ValueOf(con, rec.local)];
    }
  }
  if (rec.counted) {
    for (const Inventory::CounterUse& cu : inv_.info(d.global).counters) {
      CounterLeft(cu.counter).Add(cu.amount);
    }
  }
  if (d.shared) {
    --d.shares;
    if (const std::vector<api::Quantity>* amounts = alts_[rec.alt].amounts[rec.list_pos]) {
      std::vector<api::Quantity>& rem = remaining_[d.share_slot];
      for (size_t j = 0; j < rem.size() && j < amounts->size(); ++j) rem[j].Add((*amounts)[j]);
    }
  } else {
    --d.picks;
    --claim_picks_[rec.local * impl_.claims.size() + rec.claim];
  }
}

// --- outcome -----------------------------------------------------------------------------------

Allocator::Outcome Search::Success() {
  Allocator::Outcome out;
  out.result = Allocator::Outcome::Result::kAllocated;
  out.steps = steps_;
  Solution solution;
  solution.claims.resize(impl_.claims.size());
  solution.chosen = chosen_;
  for (const PickRec& rec : picks_) {
    solution.claims[rec.claim].push_back(
        Pick{rec.alt, locals_[rec.local].global, locals_[rec.local].shared});
    const Inventory::DeviceInfo& info = inv_.info(locals_[rec.local].global);
    out.score -= (info.has_binding_conditions() ? 2 : 0) + (info.node_local ? 0 : 1);
  }
  for (std::vector<Pick>& picks : solution.claims) {
    std::stable_sort(picks.begin(), picks.end(), [&](const Pick& x, const Pick& y) {
      return impl_.requests[impl_.alternatives[x.alternative].request].index <
             impl_.requests[impl_.alternatives[y.alternative].request].index;
    });
  }
  for (uint32_t r = 0; r < impl_.requests.size(); ++r) {
    const Request& req = impl_.requests[r];
    if (!req.first_available) continue;
    auto it = std::find(req.alternatives.begin(), req.alternatives.end(), chosen_[r]);
    const int64_t after = static_cast<int64_t>(req.alternatives.end() - it) - 1;
    out.score += Allocator::Outcome::kAlternativeWeight * after;
  }
  if (build_results_) out.allocations = BuildResults(impl_, solution, node_);
  return out;
}

Allocator::Outcome Search::Failure() {
  Allocator::Outcome out;
  out.steps = steps_;
  if (aborted_) {
    out.result = Allocator::Outcome::Result::kError;
    out.reason = std::string(kCannotAllocate) + " (allocation search exceeded its budget of " +
                 std::to_string(impl_.max_steps) + " steps)";
    return out;
  }
  out.result = Allocator::Outcome::Result::kUnschedulable;
  std::string detail = limit_exceeded_ ? detail_ : std::string();
  // The first selector evaluation error on a device usable from this node.
  for (size_t a = 0; a < impl_.alternatives.size() && detail.empty(); ++a) {
    const CandidateSet& set = *impl_.sets[impl_.alternatives[a].candidates];
    for (DeviceIndex i : set.error_devices) {
      if (std::binary_search(reachable_.begin(), reachable_.end(), i)) {
        detail = set.error;
        break;
      }
    }
  }
  if (detail.empty()) detail = detail_;
  out.reason = kCannotAllocate;
  if (!detail.empty()) out.reason += " (" + detail + ")";
  return out;
}

}  // namespace allot::dra
