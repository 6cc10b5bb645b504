// Scenario files: YAML read with yaml-cpp directly (not through api/codec), so every error can
// name the line and column it is about.
#include "sim/scenario.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <set>

#include "common/files.h"
#include "common/go_duration.h"

namespace allot::sim {

Micros DurationDist::Sample(std::mt19937_64& rng) const {
  switch (kind) {
    case Kind::kFixed:
      return a;
    case Kind::kUniform:
      return Micros(std::uniform_int_distribution<int64_t>(a.count(), b.count())(rng));
    case Kind::kExponential:
      return Micros(static_cast<int64_t>(
          std::exponential_distribution<double>(1.0 / static_cast<double>(a.count()))(rng)));
    case Kind::kLogNormal: {
      // median = e^mu; p99 = e^(mu + 2.326 sigma).
      const double mu = std::log(static_cast<double>(a.count()));
      const double sigma = (std::log(static_cast<double>(b.count())) - mu) / 2.326347874;
      return Micros(static_cast<int64_t>(std::lognormal_distribution<double>(mu, sigma)(rng)));
    }
  }
  return a;
}

namespace {

// Reads YAML nodes into values, collecting "file:line:col: path: message" for each problem.
class Reader {
 public:
  explicit Reader(std::string_view file) : file_(file) {}

  void Error(const YAML::Node& at, const std::string& path, const std::string& message) {
    std::string where = file_;
    if (at.IsDefined() && at.Mark().line >= 0) {
      where +=
          ":" + std::to_string(at.Mark().line + 1) + ":" + std::to_string(at.Mark().column + 1);
    }
    errors_.push_back(where + ": " + path + ": " + message);
  }
  bool ok() const { return errors_.empty(); }
  // Appends `note` to the errors reported since the first `from`.
  void Annotate(size_t from, const std::string& note) {
    for (size_t i = from; i < errors_.size(); ++i) errors_[i] += note;
  }
  const std::vector<std::string>& errors() const { return errors_; }

  // A mapping whose keys are all in `allowed`; false (with errors) otherwise.
  bool Map(const YAML::Node& n, const std::string& path, const std::set<std::string>& allowed) {
    if (!n.IsMap()) {
      Error(n, path, "must be a mapping");
      return false;
    }
    bool good = true;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (!allowed.count(key)) {
        Error(it->first, path.empty() ? key : path + "." + key, "unknown field");
        good = false;
      }
    }
    return good;
  }

  std::optional<std::string> String(const YAML::Node& n, const std::string& path) {
    if (!n.IsScalar()) {
      Error(n, path, "must be a string");
      return std::nullopt;
    }
    return n.Scalar();
  }

  std::optional<int64_t> Int(const YAML::Node& n, const std::string& path, int64_t min,
                             int64_t max) {
    int64_t v = 0;
    if (!n.IsScalar() || !YAML::convert<int64_t>::decode(n, v)) {
      Error(n, path, "must be an integer");
      return std::nullopt;
    }
    if (v < min || v > max) {
      Error(n, path, "must be between " + std::to_string(min) + " and " + std::to_string(max));
      return std::nullopt;
    }
    return v;
  }

  std::optional<bool> Bool(const YAML::Node& n, const std::string& path) {
    bool v = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) {
      Error(n, path, "must be true or false");
      return std::nullopt;
    }
    return v;
  }

  std::optional<Micros> Duration(const YAML::Node& n, const std::string& path,
                                 bool positive = false) {
    if (!n.IsScalar()) {
      Error(n, path, "must be a duration (\"90s\", \"1h30m\")");
      return std::nullopt;
    }
    auto d = ParseGoDuration(n.Scalar());
    if (!d.ok()) {
      Error(n, path, "must be a duration (\"90s\", \"1h30m\"): " + d.status().message());
      return std::nullopt;
    }
    if (d.value() < Micros(0) || (positive && d.value() == Micros(0))) {
      Error(n, path, positive ? "must be positive" : "must not be negative");
      return std::nullopt;
    }
    return d.value();
  }

  std::map<std::string, std::string> StringMap(const YAML::Node& n, const std::string& path) {
    std::map<std::string, std::string> out;
    if (!n.IsMap()) {
      Error(n, path, "must be a mapping of strings");
      return out;
    }
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (!it->second.IsScalar()) {
        Error(it->second, path + "." + key, "must be a string");
        continue;
      }
      out[key] = it->second.Scalar();
    }
    return out;
  }

  // A list; each item is passed to `each(item, "path[i]")`.
  template <class F>
  void List(const YAML::Node& n, const std::string& path, F each) {
    if (!n.IsSequence()) {
      Error(n, path, "must be a list");
      return;
    }
    for (size_t i = 0; i < n.size(); ++i) each(n[i], path + "[" + std::to_string(i) + "]");
  }

 private:
  std::string file_;
  std::vector<std::string> errors_;
};

// "2/m", "30/h", "0.5/s", "1/10m": arrivals per second.
std::optional<double> ParseRate(Reader& r, const YAML::Node& n, const std::string& path) {
  const std::string text = n.IsScalar() ? n.Scalar() : "";
  const size_t slash = text.find('/');
  if (slash == std::string::npos) {
    r.Error(n, path, "must be a rate: a count per duration (\"2/m\", \"30/h\", \"1/10s\")");
    return std::nullopt;
  }
  double count = 0;
  try {
    size_t used = 0;
    count = std::stod(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    r.Error(n, path, "must be a rate: a count per duration (\"2/m\", \"30/h\", \"1/10s\")");
    return std::nullopt;
  }
  std::string unit = text.substr(slash + 1);
  if (unit == "s" || unit == "m" || unit == "h") unit = "1" + unit;
  auto per = ParseGoDuration(unit);
  if (!per.ok() || per.value() <= Micros(0) || !(count > 0) || !std::isfinite(count)) {
    r.Error(n, path, "must be a positive count per positive duration (\"2/m\")");
    return std::nullopt;
  }
  return count / std::chrono::duration<double>(per.value()).count();
}

std::optional<DurationDist> ParseDist(Reader& r, const YAML::Node& n, const std::string& path) {
  DurationDist d;
  if (n.IsScalar()) {
    auto v = r.Duration(n, path);
    if (!v) return std::nullopt;
    d.a = *v;
    return d;
  }
  if (!r.Map(n, path, {"uniform", "exponential", "lognormal"}) || n.size() != 1) {
    if (n.IsMap() && n.size() != 1) {
      r.Error(n, path, "must name one distribution: uniform, exponential or lognormal");
    }
    return std::nullopt;
  }
  if (n["uniform"]) {
    const YAML::Node u = n["uniform"];
    if (!u.IsSequence() || u.size() != 2) {
      r.Error(u, path + ".uniform", "must be [low, high]");
      return std::nullopt;
    }
    auto lo = r.Duration(u[0], path + ".uniform[0]");
    auto hi = r.Duration(u[1], path + ".uniform[1]");
    if (!lo || !hi) return std::nullopt;
    if (*hi < *lo) {
      r.Error(u, path + ".uniform", "high must not be below low");
      return std::nullopt;
    }
    return DurationDist{DurationDist::Kind::kUniform, *lo, *hi};
  }
  if (n["exponential"]) {
    auto mean = r.Duration(n["exponential"], path + ".exponential", /*positive=*/true);
    if (!mean) return std::nullopt;
    return DurationDist{DurationDist::Kind::kExponential, *mean, Micros(0)};
  }
  const YAML::Node l = n["lognormal"];
  if (!r.Map(l, path + ".lognormal", {"median", "p99"})) return std::nullopt;
  if (!l["median"] || !l["p99"]) {
    r.Error(l, path + ".lognormal", "needs median and p99");
    return std::nullopt;
  }
  auto median = r.Duration(l["median"], path + ".lognormal.median", true);
  auto p99 = r.Duration(l["p99"], path + ".lognormal.p99", true);
  if (!median || !p99) return std::nullopt;
  if (*p99 <= *median) {
    r.Error(l["p99"], path + ".lognormal.p99", "must be above the median");
    return std::nullopt;
  }
  return DurationDist{DurationDist::Kind::kLogNormal, *median, *p99};
}

bool IsDnsLabel(const std::string& s) {
  if (s.empty() || s.size() > 40) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return s.front() != '-' && s.back() != '-';
}

std::optional<std::string> Name(Reader& r, const YAML::Node& item, const std::string& path) {
  if (!item["name"]) {
    r.Error(item, path + ".name", "is required");
    return std::nullopt;
  }
  auto name = r.String(item["name"], path + ".name");
  if (name && !IsDnsLabel(*name)) {
    r.Error(item["name"], path + ".name",
            "must be a DNS label of at most 40 characters (lower case letters, digits, '-')");
    return std::nullopt;
  }
  return name;
}

std::map<std::string, std::string> Resources(Reader& r, const YAML::Node& n,
                                             const std::string& path) {
  if (!r.Map(n, path, {"cpu", "memory", "pods"})) return {};
  return r.StringMap(n, path);
}

std::vector<ClaimRequest> Claims(Reader& r, const YAML::Node& n, const std::string& path,
                                 const std::set<std::string>& classes) {
  std::vector<ClaimRequest> out;
  r.List(n, path, [&](const YAML::Node& c, const std::string& p) {
    if (!r.Map(c, p, {"deviceClass", "count", "selector"})) return;
    ClaimRequest req;
    if (!c["deviceClass"]) {
      r.Error(c, p + ".deviceClass", "is required");
    } else if (auto dc = r.String(c["deviceClass"], p + ".deviceClass")) {
      if (!classes.count(*dc)) {
        r.Error(c["deviceClass"], p + ".deviceClass",
                "names no device class of the scenario: \"" + *dc + "\"");
      }
      req.device_class = *dc;
    }
    if (c["count"]) req.count = r.Int(c["count"], p + ".count", 1, 128).value_or(1);
    if (c["selector"]) req.selector = r.String(c["selector"], p + ".selector").value_or("");
    out.push_back(std::move(req));
  });
  return out;
}

// A sub-document handed to another parser (device profile, fabric, scheduler configuration):
// its errors are prefixed with where the sub-document starts.
std::string SubDocument(const YAML::Node& n) {
  YAML::Emitter out;
  out << n;
  return out.c_str();
}

// A workload's arrival: exactly one of at, every and poisson (with an optional start).
void ParseArrival(Reader& r, const YAML::Node& w, const std::string& p, Arrival& out) {
  const YAML::Node a = w["arrival"];
  if (!a) {
    r.Error(w, p + ".arrival", "is required");
  } else if (r.Map(a, p + ".arrival", {"at", "every", "poisson", "start"})) {
    const int kinds = (a["at"] ? 1 : 0) + (a["every"] ? 1 : 0) + (a["poisson"] ? 1 : 0);
    if (kinds != 1) {
      r.Error(a, p + ".arrival", "must have exactly one of at, every and poisson");
    } else if (a["at"]) {
      if (a["start"]) r.Error(a["start"], p + ".arrival.start", "is not used with at");
      out.kind = Arrival::Kind::kAt;
      out.start = r.Duration(a["at"], p + ".arrival.at").value_or(Micros(0));
    } else {
      if (a["start"]) {
        out.start = r.Duration(a["start"], p + ".arrival.start").value_or(Micros(0));
      }
      if (a["every"]) {
        out.kind = Arrival::Kind::kEvery;
        out.every = r.Duration(a["every"], p + ".arrival.every", true).value_or(Micros(1));
      } else {
        out.kind = Arrival::Kind::kPoisson;
        out.per_second = ParseRate(r, a["poisson"], p + ".arrival.poisson").value_or(1);
      }
    }
  }
}

// A nodeLoss fault at path `lp`: which pool, how many of its nodes.
void ParseNodeLoss(Reader& r, const YAML::Node& loss, const std::string& lp, const Scenario& s,
                   Fault& f) {
  f.kind = Fault::Kind::kNodeLoss;
  if (!r.Map(loss, lp, {"pool", "count"})) return;
  const NodePool* pool = nullptr;
  if (!loss["pool"]) {
    r.Error(loss, lp + ".pool", "is required");
  } else {
    f.pool = r.String(loss["pool"], lp + ".pool").value_or("");
    for (const NodePool& np : s.node_pools) {
      if (np.name == f.pool) pool = &np;
    }
    if (!pool && !f.pool.empty()) r.Error(loss["pool"], lp + ".pool", "no such node pool");
  }
  f.count = 1;
  if (loss["count"]) {
    f.count = r.Int(loss["count"], lp + ".count", 1, 100000).value_or(1);
    if (pool && f.count > pool->count) {
      r.Error(loss["count"], lp + ".count",
              "is more than the pool's " + std::to_string(pool->count) + " nodes");
    }
  }
}

// A driverOutage fault at path `op`: a driver of the scenario, and for how long.
void ParseDriverOutage(Reader& r, const YAML::Node& out, const std::string& op, const Scenario& s,
                       Fault& f) {
  f.kind = Fault::Kind::kDriverOutage;
  if (!r.Map(out, op, {"driver", "for"})) return;
  if (!out["driver"]) {
    r.Error(out, op + ".driver", "is required");
  } else {
    f.driver = r.String(out["driver"], op + ".driver").value_or("");
    bool known = (s.fabric && s.fabric->driver == f.driver) ||
                 (s.controller && s.controller->driver == f.driver);
    for (const NodePool& np : s.node_pools) {
      known = known || (np.devices && np.devices->driver == f.driver);
    }
    if (!known && !f.driver.empty()) {
      r.Error(out["driver"], op + ".driver",
              "is not the fabric's, the controller's or a node pool's devices' driver");
    }
  }
  if (!out["for"]) {
    r.Error(out, op + ".for", "is required");
  } else {
    f.lasts = r.Duration(out["for"], op + ".for", true).value_or(Micros(1));
  }
}

// Across faults: a pool cannot lose more nodes than it has; one driver's outages must not
// overlap (each would end the other's).
void CheckFaultsTogether(Reader& r, const YAML::Node& root, const Scenario& s) {
  std::map<std::string, int64_t> lost;
  for (size_t i = 0; i < s.faults.size(); ++i) {
    const Fault& f = s.faults[i];
    const std::string p = "faults[" + std::to_string(i) + "]";
    if (f.kind == Fault::Kind::kNodeLoss) {
      for (const NodePool& np : s.node_pools) {
        if (np.name == f.pool && (lost[f.pool] += f.count) > np.count) {
          r.Error(root["faults"][i], p + ".nodeLoss.count",
                  "the faults take more than the pool's " + std::to_string(np.count) + " nodes");
        }
      }
      continue;
    }
    for (size_t j = 0; j < i; ++j) {
      const Fault& g = s.faults[j];
      if (g.kind == Fault::Kind::kDriverOutage && g.driver == f.driver && f.at < g.at + g.lasts &&
          g.at < f.at + f.lasts) {
        r.Error(root["faults"][i], p + ".driverOutage",
                "overlaps faults[" + std::to_string(j) + "], an outage of the same driver");
      }
    }
  }
}

// name, duration, sampleInterval, seed.
void ParseHeader(Reader& r, const YAML::Node& root, Scenario& s) {
  if (root["name"]) s.name = r.String(root["name"], "name").value_or("");
  if (root["duration"])
    s.duration = r.Duration(root["duration"], "duration", true).value_or(s.duration);
  if (root["sampleInterval"]) {
    s.sample_interval =
        r.Duration(root["sampleInterval"], "sampleInterval", true).value_or(s.sample_interval);
  }
  if (root["seed"]) {
    s.seed = static_cast<uint64_t>(r.Int(root["seed"], "seed", 0, INT64_MAX).value_or(1));
  }
}

// deviceClasses: unique names, each with its driver.
void ParseDeviceClasses(Reader& r, const YAML::Node& root, Scenario& s) {
  std::set<std::string> class_names;
  if (root["deviceClasses"]) {
    r.List(root["deviceClasses"], "deviceClasses", [&](const YAML::Node& c, const std::string& p) {
      if (!r.Map(c, p, {"name", "driver", "selector"})) return;
      DeviceClassSpec dc;
      dc.name = Name(r, c, p).value_or("");
      if (!class_names.insert(dc.name).second && !dc.name.empty()) {
        r.Error(c["name"], p + ".name", "is used twice");
      }
      if (!c["driver"]) {
        r.Error(c, p + ".driver", "is required");
      } else {
        dc.driver = r.String(c["driver"], p + ".driver").value_or("");
      }
      if (c["selector"]) dc.selector = r.String(c["selector"], p + ".selector").value_or("");
      s.device_classes.push_back(std::move(dc));
    });
  }
}

// nodePools (at least one): count, labels, taints, capacity, devices.
void ParseNodePools(Reader& r, const YAML::Node& root, Scenario& s) {
  std::set<std::string> pool_names;
  if (root["nodePools"]) {
    r.List(root["nodePools"], "nodePools", [&](const YAML::Node& n, const std::string& p) {
      if (!r.Map(n, p, {"name", "count", "labels", "taints", "capacity", "devices"})) return;
      NodePool pool;
      pool.name = Name(r, n, p).value_or("");
      if (!pool_names.insert(pool.name).second && !pool.name.empty()) {
        r.Error(n["name"], p + ".name", "is used twice");
      }
      if (!n["count"]) {
        r.Error(n, p + ".count", "is required");
      } else {
        pool.count = r.Int(n["count"], p + ".count", 1, 100000).value_or(0);
      }
      if (n["labels"]) pool.labels = r.StringMap(n["labels"], p + ".labels");
      if (n["taints"]) {
        if (!n["taints"].IsSequence()) {
          r.Error(n["taints"], p + ".taints", "must be a list of taints");
        } else {
          pool.taints_yaml = SubDocument(n["taints"]);
        }
      }
      if (n["capacity"]) pool.capacity = Resources(r, n["capacity"], p + ".capacity");
      if (n["devices"]) {
        auto profile = drivers::ParseDeviceProfile(SubDocument(n["devices"]));
        if (!profile.ok()) {
          r.Error(n["devices"], p + ".devices", profile.status().message());
        } else {
          pool.devices = std::move(profile).value();
        }
      }
      s.node_pools.push_back(std::move(pool));
    });
  }
  if (s.node_pools.empty()) r.Error(root, "nodePools", "at least one node pool is required");
}

// fabric: the fabric driver's configuration (drivers/fabric/config.h).
void ParseFabric(Reader& r, const YAML::Node& root, Scenario& s) {
  if (root["fabric"]) {
    auto fabric = drivers::ParseFabricConfig(SubDocument(root["fabric"]));
    if (!fabric.ok()) {
      r.Error(root["fabric"], "fabric", fabric.status().message());
    } else {
      s.fabric = std::move(fabric).value();
    }
  }
}

// controller: the example control-plane driver's, without simulated latencies.
void ParseController(Reader& r, const YAML::Node& root, Scenario& s) {
  if (root["controller"]) {
    auto controller = drivers::ParseAcceleratorPoolConfig(SubDocument(root["controller"]));
    if (!controller.ok()) {
      r.Error(root["controller"], "controller", controller.status().message());
    } else {
      s.controller = std::move(controller).value();
      // Its worker would sleep through these on real time while holding work in flight.
      if (s.controller->answer_latency.count() != 0) {
        r.Error(root["controller"]["answerLatency"], "controller.answerLatency",
                "must be 0s in a scenario: the driver's latencies are not simulated");
      }
      if (s.controller->allocate_latency.count() != 0) {
        r.Error(root["controller"]["allocateLatency"], "controller.allocateLatency",
                "must be 0s in a scenario: the driver's latencies are not simulated");
      }
      if (s.fabric && s.fabric->driver == s.controller->driver) {
        r.Error(root["controller"], "controller.driver", "is also the fabric's driver");
      }
      for (const NodePool& np : s.node_pools) {
        if (np.devices && np.devices->driver == s.controller->driver) {
          r.Error(root["controller"], "controller.driver",
                  "is also node pool " + np.name + "'s devices' driver");
        }
      }
    }
  }
}

// schedulerConfig: kept as YAML for the scheduler's own parser.
void ParseSchedulerConfig(Reader& r, const YAML::Node& root, Scenario& s) {
  if (root["schedulerConfig"]) {
    if (!root["schedulerConfig"].IsMap()) {
      r.Error(root["schedulerConfig"], "schedulerConfig", "must be a mapping");
    } else {
      s.scheduler_config_yaml = SubDocument(root["schedulerConfig"]);
    }
  }
}

// workloads (at least one): count, arrival, requests, claims, run time, priority.
void ParseWorkloads(Reader& r, const YAML::Node& root, Scenario& s) {
  std::set<std::string> workload_names;
  std::set<std::string> class_names;
  for (const DeviceClassSpec& dc : s.device_classes) class_names.insert(dc.name);
  if (root["workloads"]) {
    r.List(root["workloads"], "workloads", [&](const YAML::Node& w, const std::string& p) {
      if (!r.Map(w, p,
                 {"name", "count", "arrival", "requests", "claims", "runTime", "priority", "labels",
                  "nodeSelector"})) {
        return;
      }
      Workload wl;
      wl.name = Name(r, w, p).value_or("");
      if (!workload_names.insert(wl.name).second && !wl.name.empty()) {
        r.Error(w["name"], p + ".name", "is used twice");
      }
      if (!w["count"]) {
        r.Error(w, p + ".count", "is required");
      } else {
        wl.count = r.Int(w["count"], p + ".count", 1, 1000000).value_or(0);
      }
      ParseArrival(r, w, p, wl.arrival);
      if (w["requests"]) wl.requests = Resources(r, w["requests"], p + ".requests");
      if (w["claims"]) wl.claims = Claims(r, w["claims"], p + ".claims", class_names);
      if (w["runTime"]) wl.run_time = ParseDist(r, w["runTime"], p + ".runTime");
      if (w["priority"]) {
        wl.priority = static_cast<int32_t>(
            r.Int(w["priority"], p + ".priority", -1000000000, 1000000000).value_or(0));
      }
      if (w["labels"]) wl.labels = r.StringMap(w["labels"], p + ".labels");
      if (w["nodeSelector"]) wl.node_selector = r.StringMap(w["nodeSelector"], p + ".nodeSelector");
      s.workloads.push_back(std::move(wl));
    });
  }
  if (s.workloads.empty()) r.Error(root, "workloads", "at least one workload is required");
}

// reservations: owners required, claims of the scenario's classes.
void ParseReservations(Reader& r, const YAML::Node& root, Scenario& s) {
  if (!root["reservations"]) return;
  std::set<std::string> class_names;
  for (const DeviceClassSpec& dc : s.device_classes) class_names.insert(dc.name);
  std::set<std::string> names;
  r.List(root["reservations"], "reservations", [&](const YAML::Node& n, const std::string& p) {
    if (!r.Map(n, p, {"name", "at", "requests", "claims", "owners", "ttl", "allocateOnce"})) {
      return;
    }
    ReservationSpec rs;
    rs.name = Name(r, n, p).value_or("");
    if (!names.insert(rs.name).second && !rs.name.empty()) {
      r.Error(n["name"], p + ".name", "is used twice");
    }
    if (n["at"]) rs.at = r.Duration(n["at"], p + ".at").value_or(Micros(0));
    if (n["requests"]) rs.requests = Resources(r, n["requests"], p + ".requests");
    if (n["claims"]) rs.claims = Claims(r, n["claims"], p + ".claims", class_names);
    if (!n["owners"]) {
      r.Error(n, p + ".owners", "is required: the labels of the pods that may use it");
    } else {
      rs.owners = r.StringMap(n["owners"], p + ".owners");
      if (rs.owners.empty() && n["owners"].IsMap()) {
        r.Error(n["owners"], p + ".owners", "must name at least one label");
      }
    }
    if (n["ttl"]) rs.ttl = r.Duration(n["ttl"], p + ".ttl");
    if (n["allocateOnce"])
      rs.allocate_once = r.Bool(n["allocateOnce"], p + ".allocateOnce").value_or(true);
    s.reservations.push_back(std::move(rs));
  });
}

// faults: node losses and driver outages, each inside the scenario's duration.
void ParseFaults(Reader& r, const YAML::Node& root, Scenario& s) {
  if (root["faults"]) {
    std::set<std::string> names;
    r.List(root["faults"], "faults", [&](const YAML::Node& n, const std::string& p) {
      if (!r.Map(n, p, {"name", "at", "nodeLoss", "driverOutage"})) return;
      Fault f;
      f.name = Name(r, n, p).value_or("");
      if (!names.insert(f.name).second && !f.name.empty()) {
        r.Error(n["name"], p + ".name", "is used twice");
      }
      if (!n["at"]) {
        r.Error(n, p + ".at", "is required");
      } else if (auto at = r.Duration(n["at"], p + ".at")) {
        f.at = *at;
        if (f.at > s.duration) r.Error(n["at"], p + ".at", "is after the scenario's duration");
      }
      if ((n["nodeLoss"] ? 1 : 0) + (n["driverOutage"] ? 1 : 0) != 1) {
        r.Error(n, p, "must have exactly one of nodeLoss and driverOutage");
        return;
      }
      if (const YAML::Node loss = n["nodeLoss"]) {
        ParseNodeLoss(r, loss, p + ".nodeLoss", s, f);
      } else {
        ParseDriverOutage(r, n["driverOutage"], p + ".driverOutage", s, f);
      }
      s.faults.push_back(std::move(f));
    });
    CheckFaultsTogether(r, root, s);
  }
}

// heatmapAt, and the times that must fall within the duration.
void ParseHeatmapAt(Reader& r, const YAML::Node& root, Scenario& s) {
  if (root["heatmapAt"]) {
    r.List(root["heatmapAt"], "heatmapAt", [&](const YAML::Node& n, const std::string& p) {
      if (auto d = r.Duration(n, p)) s.heatmap_at.push_back(*d);
    });
  }
  for (size_t i = 0; i < s.heatmap_at.size(); ++i) {
    if (s.heatmap_at[i] > s.duration) {
      r.Error(root["heatmapAt"][i], "heatmapAt[" + std::to_string(i) + "]",
              "is after the scenario's duration");
    }
  }
  if (s.sample_interval > s.duration) {
    r.Error(root["sampleInterval"], "sampleInterval", "must not exceed the duration");
  }
}

void ParseBody(Reader& r, const YAML::Node& root, Scenario& s) {
  if (!r.Map(root, "",
             {"name", "duration", "sampleInterval", "seed", "deviceClasses", "nodePools", "fabric",
              "controller", "schedulerConfig", "workloads", "reservations", "faults", "heatmapAt",
              "variants"})) {
    if (!root.IsMap()) return;
  }
  ParseHeader(r, root, s);
  ParseDeviceClasses(r, root, s);
  ParseNodePools(r, root, s);
  ParseFabric(r, root, s);
  ParseController(r, root, s);
  ParseSchedulerConfig(r, root, s);
  ParseWorkloads(r, root, s);
  ParseReservations(r, root, s);
  ParseFaults(r, root, s);
  ParseHeatmapAt(r, root, s);
}

// Lists whose items are mappings with a name merge item by item; other lists replace.
bool NamedList(const YAML::Node& n) {
  if (!n.IsSequence()) return false;
  for (const YAML::Node& item : n) {
    if (!item.IsMap() || !item["name"] || !item["name"].IsScalar()) return false;
  }
  return true;
}

YAML::Node Merge(const YAML::Node& base, const YAML::Node& over) {
  if (base.IsMap() && over.IsMap()) {
    YAML::Node out = YAML::Clone(base);
    for (auto it = over.begin(); it != over.end(); ++it) {
      const std::string key = it->first.Scalar();
      out[key] = out[key] ? Merge(out[key], it->second) : it->second;
    }
    return out;
  }
  if (NamedList(base) && NamedList(over)) {
    YAML::Node out = YAML::Clone(base);
    for (const YAML::Node& item : over) {
      bool merged = false;
      for (size_t i = 0; i < out.size(); ++i) {
        if (out[i]["name"].Scalar() == item["name"].Scalar()) {
          out[i] = Merge(out[i], item);
          merged = true;
          break;
        }
      }
      if (!merged) out.push_back(item);
    }
    return out;
  }
  return over;
}

}  // namespace

Result<std::vector<Scenario>> ParseScenario(std::string_view yaml, std::string_view file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return Status(StatusCode::kBadRequest, std::string(file) + ":" +
                                               std::to_string(e.mark.line + 1) + ":" +
                                               std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  Reader r(file);
  std::vector<Scenario> out;
  if (!root.IsMap()) {
    r.Error(root, "(document)", "must be a mapping");
  } else if (!root["variants"]) {
    Scenario s;
    ParseBody(r, root, s);
    out.push_back(std::move(s));
  } else {
    YAML::Node base = YAML::Clone(root);
    base.remove("variants");
    // The scenario itself first: its problems are reported once, not once per variant.
    Scenario unused;
    ParseBody(r, base, unused);
    const bool base_ok = r.ok();
    std::set<std::string> names;
    r.List(root["variants"], "variants", [&](const YAML::Node& v, const std::string& p) {
      if (!v.IsMap()) {
        r.Error(v, p, "must be a mapping");
        return;
      }
      auto name = Name(r, v, p);
      if (!name) return;
      if (!names.insert(*name).second) r.Error(v["name"], p + ".name", "is used twice");
      YAML::Node over = YAML::Clone(v);
      over.remove("name");
      if (over["variants"]) {
        r.Error(v["variants"], p + ".variants", "variants do not nest");
        return;
      }
      if (!base_ok) return;
      Scenario s;
      s.variant = *name;
      const size_t before = r.errors().size();
      ParseBody(r, Merge(base, over), s);
      r.Annotate(before, " (variant " + *name + ")");
      out.push_back(std::move(s));
    });
    if (root["variants"].IsSequence() && root["variants"].size() == 0) {
      r.Error(root["variants"], "variants", "must list at least one variant");
    }
  }
  if (!r.ok()) {
    std::string msg = "invalid scenario:";
    for (const std::string& e : r.errors()) msg += "\n  " + e;
    return Status(StatusCode::kBadRequest, msg);
  }
  return out;
}

Result<std::vector<Scenario>> ReadScenarioFile(const std::string& path) {
  ALLOT_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseScenario(text, path);
}

}  // namespace allot::sim
