// Allocator against a brute-force oracle on small random instances: the pruning (counting
// bounds, value-first matchAttribute, symmetry classes, memo) must never lose a solution, and
// every solution must satisfy every rule. Also checks that firstAvailable choices are the
// lexicographically earliest feasible ones.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "dra/testing/allocator.h"

namespace allot::dra {
namespace {

using namespace testing::vocabulary;  // NOLINT: the allocator tests' shared names

struct Dev {
  int a = -1;  // attribute "a" (-1: missing)
  int b = -1;
  int mem = 0;  // counter consumption (0: none)
  bool taken = false;
};
struct Alt {
  int count = 1;     // 0: All
  std::string attr;  // selector "attr=value", "" for none
  int value = 0;
};
struct Req {
  std::vector<Alt> alts;  // one: exactly; more: firstAvailable
};
struct Con {
  bool match = true;
  std::string attr;
  int scope = -1;  // -1: all requests, else the request index... plus the next one
};
struct Claim {
  std::vector<Req> reqs;
  std::vector<Con> cons;
};
struct Instance {
  std::vector<Dev> devs;
  int mem_capacity = 0;  // 0: no counters
  std::vector<Claim> claims;
};

// max_devices / values: the instance size and how many attribute values there are (fewer
// values: more interchangeable devices, exercising symmetry classes and the memo).
Instance Generate(std::mt19937& rng, int max_devices = 7, int values = 3) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  Instance in;
  const int n = pick(1, max_devices);
  const bool counters = chance(0.3);
  if (counters) in.mem_capacity = pick(2, 6);
  for (int i = 0; i < n; ++i) {
    Dev d;
    if (!chance(0.15)) d.a = pick(0, values - 1);
    if (!chance(0.15)) d.b = pick(0, values - 1);
    if (counters) d.mem = pick(0, 3);
    d.taken = chance(0.2);
    in.devs.push_back(d);
  }
  int total = 0;
  const int claims = pick(1, 2);
  for (int c = 0; c < claims && total < 4; ++c) {
    Claim claim;
    const int reqs = pick(1, 3);
    for (int r = 0; r < reqs && total < 4; ++r, ++total) {
      Req req;
      const int alts = chance(0.25) ? 2 : 1;
      for (int k = 0; k < alts; ++k) {
        Alt alt;
        alt.count = chance(0.1) ? 0 : pick(1, 3);
        if (chance(0.4)) {
          alt.attr = chance(0.5) ? "a" : "b";
          alt.value = pick(0, values - 1);
        }
        req.alts.push_back(alt);
      }
      claim.reqs.push_back(req);
    }
    if (chance(0.4)) claim.cons.push_back({true, "a", chance(0.5) ? -1 : 0});
    if (chance(0.3)) claim.cons.push_back({false, "b", chance(0.5) ? -1 : 0});
    in.claims.push_back(claim);
  }
  return in;
}

int Attr(const Dev& d, const std::string& name) { return name == "a" ? d.a : d.b; }

bool Selects(const Alt& alt, const Dev& d) {
  return alt.attr.empty() || Attr(d, alt.attr) == alt.value;
}

// Constraint scope: all requests, or requests `scope` and `scope + 1`.
bool InScope(const Con& con, int r) {
  return con.scope < 0 || r == con.scope || r == con.scope + 1;
}

std::string ReqName(int r) { return "r" + std::to_string(r); }

// --- the oracle --------------------------------------------------------------------------------

struct Oracle {
  const Instance& in;
  std::vector<std::pair<int, int>> slots;  // (claim, request) in claim order
  std::vector<int> chosen;                 // alternative per slot
  std::vector<std::vector<int>> devices;   // per slot
  std::vector<int> used;
  std::vector<int> best;  // lexicographically smallest feasible alternative vector

  explicit Oracle(const Instance& instance) : in(instance) {
    for (size_t c = 0; c < in.claims.size(); ++c) {
      for (size_t r = 0; r < in.claims[c].reqs.size(); ++r) slots.emplace_back(c, r);
    }
    chosen.assign(slots.size(), 0);
    devices.assign(slots.size(), {});
    used.assign(in.devs.size(), 0);
  }

  bool Valid() const {
    // A device that consumes counters needs room for everything consumed so far (in use and
    // chosen); devices that consume none never fail on counters.
    int taken = 0, chosen_mem = 0;
    for (size_t i = 0; i < in.devs.size(); ++i) {
      if (in.devs[i].taken) taken += in.devs[i].mem;
      if (used[i]) chosen_mem += in.devs[i].mem;
    }
    if (in.mem_capacity > 0 && chosen_mem > 0 && taken + chosen_mem > in.mem_capacity) {
      return false;
    }
    for (size_t c = 0; c < in.claims.size(); ++c) {
      for (const Con& con : in.claims[c].cons) {
        std::vector<int> values;
        for (size_t s = 0; s < slots.size(); ++s) {
          if (slots[s].first != static_cast<int>(c) || !InScope(con, slots[s].second)) continue;
          for (int d : devices[s]) values.push_back(Attr(in.devs[d], con.attr));
        }
        for (int v : values) {
          if (v < 0) return false;
        }
        std::set<int> distinct(values.begin(), values.end());
        if (con.match && distinct.size() > 1) return false;
        if (!con.match && distinct.size() != values.size()) return false;
      }
    }
    return true;
  }

  // Tries alternative vectors in lexicographic order; true when one has a solution (`best`).
  bool Solve() { return Vector(0); }
  bool Vector(size_t s) {
    if (s == slots.size()) return Slot(0);
    const Req& req = in.claims[slots[s].first].reqs[slots[s].second];
    for (size_t a = 0; a < req.alts.size(); ++a) {
      chosen[s] = static_cast<int>(a);
      if (Vector(s + 1)) return true;
    }
    return false;
  }
  // Enumerates devices for slot s with the alternatives in `chosen`.
  bool Slot(size_t s) {
    if (s == slots.size()) {
      if (!Valid()) return false;
      best = chosen;
      return true;
    }
    const Req& req = in.claims[slots[s].first].reqs[slots[s].second];
    {
      const size_t a = chosen[s];
      const Alt& alt = req.alts[a];
      std::vector<int> cands;
      bool blocked = false;
      for (size_t d = 0; d < in.devs.size(); ++d) {
        if (!Selects(alt, in.devs[d])) continue;
        if (in.devs[d].taken || used[d]) {
          blocked = true;
          continue;
        }
        cands.push_back(static_cast<int>(d));
      }
      if (alt.count == 0) return !blocked && !cands.empty() && Take(s, cands);
      return Choose(s, cands, alt.count, 0);
    }
  }
  bool Take(size_t s, const std::vector<int>& ds) {
    for (int d : ds) used[d] = 1;
    devices[s] = ds;
    bool ok = Slot(s + 1);
    for (int d : ds) used[d] = 0;
    devices[s].clear();
    return ok;
  }
  bool Choose(size_t s, const std::vector<int>& cands, int need, size_t from) {
    if (need == 0) return Slot(s + 1);
    for (size_t i = from; i < cands.size(); ++i) {
      used[cands[i]] = 1;
      devices[s].push_back(cands[i]);
      bool ok = Choose(s, cands, need - 1, i + 1);
      used[cands[i]] = 0;
      devices[s].pop_back();
      if (ok) return true;
    }
    return false;
  }
};

std::string Describe(const Instance& in) {
  std::string out = "mem capacity " + std::to_string(in.mem_capacity) + "\n";
  for (size_t i = 0; i < in.devs.size(); ++i) {
    const Dev& d = in.devs[i];
    out += "d" + std::to_string(i) + ": a=" + std::to_string(d.a) + " b=" + std::to_string(d.b) +
           " mem=" + std::to_string(d.mem) + (d.taken ? " taken" : "") + "\n";
  }
  for (size_t c = 0; c < in.claims.size(); ++c) {
    out += "claim c" + std::to_string(c) + "\n";
    for (size_t r = 0; r < in.claims[c].reqs.size(); ++r) {
      out += "  r" + std::to_string(r) + ":";
      for (const Alt& a : in.claims[c].reqs[r].alts) {
        out += " [count " + std::to_string(a.count) + " " + a.attr + "=" + std::to_string(a.value) +
               "]";
      }
      out += "\n";
    }
    for (const Con& con : in.claims[c].cons) {
      out += std::string("  ") + (con.match ? "match " : "distinct ") + con.attr + " scope " +
             std::to_string(con.scope) + "\n";
    }
  }
  return out;
}

// --- running the allocator ---------------------------------------------------------------------

void BuildObjects(const Instance& in, AllocatorHarness& h,
                  std::vector<std::shared_ptr<const api::ResourceClaim>>& claims) {
  SliceBuilder s("s", kDriver, "n1");
  s.Node("n1");
  if (in.mem_capacity > 0) s.SharedCounter("g", "mem", std::to_string(in.mem_capacity));
  for (size_t i = 0; i < in.devs.size(); ++i) {
    DeviceBuilder d("d" + std::to_string(i));
    if (in.devs[i].a >= 0) d.Int("a", in.devs[i].a);
    if (in.devs[i].b >= 0) d.Int("b", in.devs[i].b);
    if (in.devs[i].mem > 0) d.Consumes("g", "mem", std::to_string(in.devs[i].mem));
    s.Device(d);
  }
  h.Slice(s);
  h.Class(ClassBuilder("gpu"));
  for (size_t i = 0; i < in.devs.size(); ++i) {
    if (in.devs[i].taken) h.Use(AllocatorHarness::Taken(kDriver, "n1", "d" + std::to_string(i)));
  }
  for (size_t c = 0; c < in.claims.size(); ++c) {
    ClaimBuilder b("c" + std::to_string(c));
    for (size_t r = 0; r < in.claims[c].reqs.size(); ++r) {
      const Req& req = in.claims[c].reqs[r];
      auto add = [&](const Alt& alt, const std::string& sub) {
        if (sub.empty()) {
          if (alt.count == 0) {
            b.AllRequest(ReqName(r), "gpu");
          } else {
            b.Request(ReqName(r), "gpu", alt.count);
          }
        } else if (alt.count == 0) {
          b.AllSub(sub, "gpu");
        } else {
          b.Sub(sub, "gpu", alt.count);
        }
        if (!alt.attr.empty()) b.Selector(alt.attr + "=" + std::to_string(alt.value));
      };
      if (req.alts.size() == 1) {
        add(req.alts[0], "");
      } else {
        b.FirstAvailable(ReqName(r));
        for (size_t a = 0; a < req.alts.size(); ++a) add(req.alts[a], "s" + std::to_string(a));
      }
    }
    for (const Con& con : in.claims[c].cons) {
      std::vector<std::string> scope;
      if (con.scope >= 0) {
        scope.push_back(ReqName(con.scope));
        scope.push_back(ReqName(con.scope + 1));
      }
      const std::string attr = std::string(kDriver) + "/" + con.attr;
      if (con.match) {
        b.MatchAttribute(attr, scope);
      } else {
        b.DistinctAttribute(attr, scope);
      }
    }
    claims.push_back(b.Build());
  }
}

// Checks an allocation against the instance; returns the alternative vector it used.
std::vector<int> Check(const Instance& in, const Allocator::Outcome& out) {
  std::vector<int> alts;
  Oracle o(in);
  std::map<std::pair<int, int>, std::vector<int>> by_slot;
  std::map<std::pair<int, int>, int> alt_of;
  std::set<int> seen;
  for (size_t c = 0; c < in.claims.size(); ++c) {
    for (const auto& r : out.allocations[c].devices.results) {
      const int d = std::stoi(r.device.substr(1));
      EXPECT_FALSE(in.devs[d].taken) << r.device;
      EXPECT_TRUE(seen.insert(d).second) << "device twice: " << r.device;
      const std::string& request = r.request;
      const size_t slash = request.find('/');
      const int req = std::stoi(request.substr(1, slash));
      const int alt = slash == std::string::npos ? 0 : std::stoi(request.substr(slash + 2));
      EXPECT_TRUE(Selects(in.claims[c].reqs[req].alts[alt], in.devs[d])) << r.request;
      by_slot[{static_cast<int>(c), req}].push_back(d);
      alt_of[{static_cast<int>(c), req}] = alt;
    }
  }
  for (size_t s = 0; s < o.slots.size(); ++s) {
    const auto key = std::make_pair(o.slots[s].first, o.slots[s].second);
    const Alt& alt = in.claims[key.first].reqs[key.second].alts[alt_of[key]];
    o.devices[s] = by_slot[key];
    for (int d : o.devices[s]) o.used[d] = 1;
    if (alt.count > 0) {
      EXPECT_EQ(static_cast<int>(o.devices[s].size()), alt.count);
    }
    alts.push_back(alt_of[key]);
  }
  EXPECT_TRUE(o.Valid()) << "constraints or counters violated";
  return alts;
}

void RunRandom(uint32_t first_seed, uint32_t count, int max_devices, int values, int min_feasible) {
  int feasible = 0;
  for (uint32_t seed = first_seed; seed < first_seed + count; ++seed) {
    std::mt19937 rng(seed);
    Instance in = Generate(rng, max_devices, values);
    Oracle oracle(in);
    const bool want = oracle.Solve();
    AllocatorHarness h;
    std::vector<std::shared_ptr<const api::ResourceClaim>> claims;
    BuildObjects(in, h, claims);
    auto out = h.Allocate(claims, MakeNode("n1"));
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + Describe(in));
    ASSERT_NE(out.result, Result::kError) << out.reason;
    ASSERT_EQ(out.result == Result::kAllocated, want) << out.reason;
    if (!want) continue;
    ++feasible;
    EXPECT_EQ(Check(in, out), oracle.best) << "not the earliest alternatives";
  }
  EXPECT_GT(feasible, min_feasible);
}

TEST(AllocatorRandom, AgreesWithBruteForce) { RunRandom(1, 3000, 7, 3, 300); }

TEST(AllocatorRandom, AgreesWithBruteForceManyLookalikes) { RunRandom(100000, 1500, 9, 2, 150); }

}  // namespace
}  // namespace allot::dra
