// Search: the relaxation checks (Feasible), the symmetry classes and the memo key.
#include <algorithm>
#include <map>
#include <unordered_set>

#include "dra/allocator_search.h"

namespace allot::dra {
namespace {

uint64_t Mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr uint64_t kSeeds[2] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL};

uint64_t Tag(uint64_t a, uint64_t b, int k) { return Mix(Mix(a ^ kSeeds[k]) + b); }

}  // namespace

bool Search::RelaxedUsable(uint32_t alt, uint32_t list_pos) const {
  const Alternative& a = impl_.alternatives[alt];
  const AltState& st = alts_[alt];
  const uint32_t l = st.list[list_pos];
  const Local& d = locals_[l];
  const uint32_t claim = impl_.requests[a.request].claim;
  if (d.shared) {
    if (const std::vector<api::Quantity>* amounts = st.amounts[list_pos]) {
      const std::vector<api::Quantity>& rem = remaining_[d.share_slot];
      for (size_t j = 0; j < rem.size() && j < amounts->size(); ++j) {
        if (rem[j] < (*amounts)[j]) return false;
      }
    }
  } else if (a.admin) {
    if (claim_picks_[l * impl_.claims.size() + claim] > 0) return false;
  } else if (d.picks > 0) {
    return false;
  }
  for (uint32_t con : impl_.claims[claim].constraints) {
    if (!InScope(con, alt)) continue;
    const int32_t v = ValueOf(con, l);
    if (v < 0) return false;
    const ConState& cs = cons_[con];
    if (impl_.constraints[con].match) {
      if (cs.value >= 0 && cs.value != v) return false;
    } else if (!cs.used.empty() && cs.used[v] > 0) {
      return false;
    }
  }
  return true;
}

bool Search::Feasible(size_t pos) {
  const size_t n_local = locals_.size();
  if (stamp_.size() != n_local) stamp_.assign(n_local, 0);
  if (visit_.size() != n_local) visit_.assign(n_local, 0);
  std::vector<uint32_t> usable;
  slot_count_ = 0;
  for (size_t q = pos; q < order_.size(); ++q) {
    const uint32_t r = order_[q];
    const Request& req = impl_.requests[r];
    if (slots_.size() <= slot_count_) slots_.emplace_back();
    Slot& s = slots_[slot_count_++];
    s.request = r;
    s.need = INT64_MAX;
    s.admin = false;
    s.usable_alts.clear();
    s.cands.clear();
    ++stamp_gen_;
    for (uint32_t a : req.alternatives) {
      if (fixed_[r] != kNone && a != fixed_[r]) continue;
      const Alternative& alt = impl_.alternatives[a];
      const AltState& st = alts_[a];
      if (results_[req.claim] + Need(a) > static_cast<int64_t>(kMaxResultsPerClaim)) continue;
      if (alt.all && (st.blocked || st.list.empty() || incomplete_pool_)) continue;
      usable.clear();
      for (uint32_t i = 0; i < st.list.size(); ++i) {
        if (RelaxedUsable(a, i)) usable.push_back(st.list[i]);
      }
      if (alt.all ? usable.size() != st.list.size()
                  : static_cast<int64_t>(usable.size()) < alt.count) {
        continue;
      }
      for (uint32_t l : usable) {
        if (stamp_[l] == stamp_gen_) continue;
        stamp_[l] = stamp_gen_;
        s.cands.push_back(l);
      }
      s.usable_alts.push_back(a);
      s.need = std::min(s.need, Need(a));
      s.admin = alt.admin;
    }
    if (s.usable_alts.empty()) return false;
  }
  // Hall's condition over all groups of requests: a b-matching of requests to the non-shared
  // devices (admin requests take nothing away; shared devices can serve every request).
  owner_.assign(n_local, -1);
  std::vector<int64_t> got(slot_count_, 0);
  for (uint32_t q = 0; q < slot_count_; ++q) {
    Slot& s = slots_[q];
    int64_t shared = 0;
    for (uint32_t l : s.cands) shared += locals_[l].shared;
    s.flow_need = s.admin ? 0 : std::max<int64_t>(0, s.need - shared);
    for (uint32_t l : s.cands) {
      if (got[q] == s.flow_need) break;
      if (!locals_[l].shared && owner_[l] < 0) {
        owner_[l] = static_cast<int32_t>(q);
        ++got[q];
      }
    }
  }
  for (uint32_t q = 0; q < slot_count_; ++q) {
    while (got[q] < slots_[q].flow_need) {
      ++visit_gen_;
      if (!Augment(q)) return false;
      ++got[q];
    }
  }
  return CheckDistinct(0) && CheckMatch(0);
}

bool Search::Augment(uint32_t q) {
  for (uint32_t l : slots_[q].cands) {
    if (locals_[l].shared || owner_[l] == static_cast<int32_t>(q) || visit_[l] == visit_gen_) {
      continue;
    }
    visit_[l] = visit_gen_;
    if (owner_[l] < 0 || Augment(static_cast<uint32_t>(owner_[l]))) {
      owner_[l] = static_cast<int32_t>(q);
      return true;
    }
  }
  return false;
}

// distinctAttribute: the requests fully in scope need, together and each alone, at least as
// many distinct unused values as devices.
bool Search::CheckDistinct(size_t first_slot) const {
  for (uint32_t con = 0; con < impl_.constraints.size(); ++con) {
    const Constraint& c = impl_.constraints[con];
    if (c.match) continue;
    int64_t total = 0;
    std::unordered_set<int32_t> all_values;
    for (size_t q = first_slot; q < slot_count_; ++q) {
      const Slot& s = slots_[q];
      if (impl_.requests[s.request].claim != c.claim) continue;
      if (!std::all_of(s.usable_alts.begin(), s.usable_alts.end(),
                       [&](uint32_t a) { return InScope(con, a); })) {
        continue;
      }
      std::unordered_set<int32_t> values;
      for (uint32_t l : s.cands) values.insert(ValueOf(con, l));
      if (static_cast<int64_t>(values.size()) < s.need) return false;
      total += s.need;
      all_values.insert(values.begin(), values.end());
    }
    if (static_cast<int64_t>(all_values.size()) < total) return false;
  }
  return true;
}

// An unbound matchAttribute needs one value from which every request fully in scope can get
// its devices, and all of them together (unless a shared device has that value).
bool Search::CheckMatch(size_t first_slot) const {
  for (uint32_t con = 0; con < impl_.constraints.size(); ++con) {
    const Constraint& c = impl_.constraints[con];
    if (!c.match || cons_[con].value >= 0) continue;
    std::vector<const Slot*> scoped;
    for (size_t q = first_slot; q < slot_count_; ++q) {
      const Slot& s = slots_[q];
      if (impl_.requests[s.request].claim != c.claim) continue;
      if (std::all_of(s.usable_alts.begin(), s.usable_alts.end(),
                      [&](uint32_t a) { return InScope(con, a); })) {
        scoped.push_back(&s);
      }
    }
    if (scoped.empty()) continue;
    std::unordered_map<int32_t, size_t> satisfied;  // value -> requests it can serve
    std::unordered_map<int32_t, int64_t> devices;   // value -> distinct non-shared devices
    std::unordered_set<int32_t> shared_values;
    std::unordered_set<uint32_t> seen;
    int64_t total = 0;
    for (const Slot* s : scoped) {
      total += s->need;
      std::unordered_map<int32_t, int64_t> hist;
      for (uint32_t l : s->cands) {
        const int32_t v = ValueOf(con, l);
        ++hist[v];
        if (!seen.insert(l).second) continue;
        if (locals_[l].shared) {
          shared_values.insert(v);
        } else {
          ++devices[v];
        }
      }
      for (const auto& [v, n] : hist) {
        if (n >= s->need) ++satisfied[v];
      }
    }
    bool any = false;
    for (const auto& [v, n] : satisfied) {
      if (n != scoped.size()) continue;
      if (shared_values.count(v) || devices[v] >= total) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  return true;
}

void Search::EnsureClasses() {
  if (classes_ready_) return;
  std::vector<std::vector<uint32_t>> signature(locals_.size());
  for (uint32_t a = 0; a < alts_.size(); ++a) {
    for (uint32_t l : alts_[a].list) signature[l].push_back(a);
  }
  std::map<std::vector<uint32_t>, uint32_t> classes;
  uint32_t next = 0;
  for (uint32_t l = 0; l < locals_.size(); ++l) {
    Local& d = locals_[l];
    if (d.shared) {
      d.cls = next++;  // never interchangeable: each has its own remaining capacity
      continue;
    }
    std::vector<uint32_t>& sig = signature[l];
    if (d.counters) {  // interchangeable with devices consuming exactly the same counters
      for (const Inventory::CounterUse& cu : inv_.info(d.global).counters) {
        sig.push_back(UINT32_MAX - 1);
        sig.push_back(cu.counter);
        const std::string amount = cu.amount.CanonicalString();
        for (char ch : amount) sig.push_back(static_cast<uint8_t>(ch));
      }
    }
    for (uint32_t con = 0; con < impl_.constraints.size(); ++con) {
      sig.push_back(UINT32_MAX);
      sig.push_back(static_cast<uint32_t>(ValueOf(con, l)));
    }
    auto [it, added] = classes.try_emplace(std::move(sig), next);
    if (added) ++next;
    d.cls = it->second;
  }
  tried_.assign(next, 0);
  classes_ready_ = true;
}

std::pair<uint64_t, uint64_t> Search::StateKey(size_t pos) const {
  uint64_t h[2] = {Mix(pos ^ kSeeds[0]), Mix(pos ^ kSeeds[1])};
  auto chain = [&](uint64_t x) {
    for (int k = 0; k < 2; ++k) h[k] = Mix(h[k] ^ Tag(x, 0, k));
  };
  // Claims whose requests are all decided only matter through the devices they took.
  auto open = [&](uint32_t claim) { return last_pos_[claim] >= pos; };
  for (uint32_t c = 0; c < results_.size(); ++c) chain(open(c) ? results_[c] + 1 : 0);
  for (size_t q = pos; q < order_.size(); ++q) chain(fixed_[order_[q]]);
  for (uint32_t con = 0; con < cons_.size(); ++con) {
    if (impl_.constraints[con].match && open(impl_.constraints[con].claim)) {
      chain(static_cast<uint64_t>(cons_[con].value + 1));
    }
  }
  // Picks as a multiset of (device class, what picked it); distinct values as a multiset.
  std::vector<const PickRec*> picks;
  picks.reserve(picks_.size());
  for (const PickRec& p : picks_) picks.push_back(&p);
  std::sort(picks.begin(), picks.end(),
            [](const PickRec* x, const PickRec* y) { return x->local < y->local; });
  uint64_t acc[2] = {0, 0};
  uint64_t distinct[2] = {0, 0};
  for (size_t i = 0; i < picks.size();) {
    const Local& d = locals_[picks[i]->local];
    uint64_t sig[2] = {0, 0};
    size_t j = i;
    for (; j < picks.size() && picks[j]->local == picks[i]->local; ++j) {
      const PickRec& p = *picks[j];
      // A non-shared device taken by a finished claim blocks exclusive picks and nothing else,
      // whoever took it and how.
      const uint64_t what = d.shared ? p.alt
                            : open(p.claim)
                                ? uint64_t{p.claim} * 2 + 2 + impl_.alternatives[p.alt].admin
                                : 0;
      for (int k = 0; k < 2; ++k) sig[k] += Tag(what, 1, k);
      if (!open(p.claim)) continue;
      for (uint32_t con : impl_.claims[p.claim].constraints) {
        if (impl_.constraints[con].match || !InScope(con, p.alt)) continue;
        const uint64_t v = static_cast<uint64_t>(ValueOf(con, p.local));
        for (int k = 0; k < 2; ++k) distinct[k] += Tag((uint64_t{con} << 32) | v, 2, k);
      }
    }
    for (int k = 0; k < 2; ++k) acc[k] += Tag(d.cls, sig[k], k);
    i = j;
  }
  return {Mix(h[0] ^ acc[0]) ^ Mix(distinct[0] + kSeeds[0]),
          Mix(h[1] ^ acc[1]) ^ Mix(distinct[1] + kSeeds[1])};
}

}  // namespace allot::dra
