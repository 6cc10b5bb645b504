#include "scheduler/config/config.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <set>

#include "api/codec/yaml.h"

namespace allot::scheduler {

namespace {

using rapidjson::Value;

allot::Status FieldError(const std::string& path, const std::string& what) {
  return allot::BadRequestError(path + ": " + what);
}

std::string ToJson(const Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

Result<int64_t> IntField(const Value& v, const std::string& path, int64_t lo, int64_t hi) {
  if (!v.IsInt64()) return FieldError(path, "must be an integer");
  int64_t x = v.GetInt64();
  if (x < lo || x > hi) {
    return FieldError(path, "Invalid value: " + std::to_string(x) + ": must be in [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return x;
}

Result<std::vector<PluginRef>> ParseRefs(const Value& v, const std::string& path) {
  if (!v.IsArray()) return FieldError(path, "must be a list");
  std::vector<PluginRef> out;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    std::string at = path + "[" + std::to_string(i) + "]";
    const Value& r = v[i];
    if (!r.IsObject()) return FieldError(at, "must be an object");
    PluginRef ref;
    for (auto m = r.MemberBegin(); m != r.MemberEnd(); ++m) {
      std::string key = m->name.GetString();
      if (key == "name" && m->value.IsString()) {
        ref.name = m->value.GetString();
      } else if (key == "weight") {
        ALLOT_ASSIGN_OR_RETURN(int64_t w, IntField(m->value, at + ".weight", 0, 100));
        ref.weight = static_cast<int32_t>(w);
      } else {
        return FieldError(at + "." + key, "unknown field");
      }
    }
    if (ref.name.empty()) return FieldError(at + ".name", "Required value");
    out.push_back(std::move(ref));
  }
  return out;
}

Result<PluginSet> ParseSet(const Value& v, const std::string& path) {
  if (!v.IsObject()) return FieldError(path, "must be an object");
  PluginSet set;
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    std::string key = m->name.GetString();
    if (key == "enabled") {
      ALLOT_ASSIGN_OR_RETURN(set.enabled, ParseRefs(m->value, path + ".enabled"));
    } else if (key == "disabled") {
      ALLOT_ASSIGN_OR_RETURN(set.disabled, ParseRefs(m->value, path + ".disabled"));
    } else {
      return FieldError(path + "." + key, "unknown field");
    }
  }
  return set;
}

PluginSet* PointByName(Plugins& p, const std::string& name) {
  static const std::pair<const char*, PluginSet Plugins::*> kPoints[] = {
      {"preEnqueue", &Plugins::pre_enqueue},
      {"queueSort", &Plugins::queue_sort},
      {"preFilter", &Plugins::pre_filter},
      {"filter", &Plugins::filter},
      {"postFilter", &Plugins::post_filter},
      {"preScore", &Plugins::pre_score},
      {"score", &Plugins::score},
      {"reserve", &Plugins::reserve},
      {"permit", &Plugins::permit},
      {"preBind", &Plugins::pre_bind},
      {"bind", &Plugins::bind},
      {"postBind", &Plugins::post_bind},
      {"multiPoint", &Plugins::multi_point}};
  for (const auto& [n, member] : kPoints) {
    if (name == n) return &(p.*member);
  }
  return nullptr;
}

// The defaults' multiPoint, then the user's: user multiPoint plugins are added (or override a
// default's weight), user multiPoint.disabled removes defaults ("*": all of them).
PluginSet MergeMultiPoint(const PluginSet& user) {
  PluginSet out;
  bool all_off = std::any_of(user.disabled.begin(), user.disabled.end(),
                             [](const PluginRef& r) { return r.name == "*"; });
  if (!all_off) {
    for (const PluginRef& d : DefaultPlugins()) {
      bool off = std::any_of(user.disabled.begin(), user.disabled.end(),
                             [&](const PluginRef& r) { return r.name == d.name; });
      if (!off) out.enabled.push_back(d);
    }
  }
  for (const PluginRef& u : user.enabled) {
    auto it = std::find_if(out.enabled.begin(), out.enabled.end(),
                           [&](const PluginRef& r) { return r.name == u.name; });
    if (it != out.enabled.end()) {
      if (u.weight > 0) it->weight = u.weight;
    } else {
      out.enabled.push_back(u);
    }
  }
  out.disabled = user.disabled;
  return out;
}

Result<Plugins> ParsePlugins(const Value& v, const std::string& path) {
  if (!v.IsObject()) return FieldError(path, "must be an object");
  Plugins p;
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    std::string key = m->name.GetString();
    PluginSet* set = PointByName(p, key);
    if (!set) return FieldError(path + "." + key, "unknown field");
    ALLOT_ASSIGN_OR_RETURN(*set, ParseSet(m->value, path + "." + key));
  }
  for (const PluginRef& r : p.score.enabled) {
    if (r.weight == 0) continue;
    if (r.weight < 1 || r.weight > 100) {
      return FieldError(path + ".score.enabled", "weight must be in [1, 100]");
    }
  }
  p.multi_point = MergeMultiPoint(p.multi_point);
  return p;
}

Result<std::vector<PluginConfig>> ParsePluginConfig(const Value& v, const std::string& path) {
  if (!v.IsArray()) return FieldError(path, "must be a list");
  std::vector<PluginConfig> out;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    std::string at = path + "[" + std::to_string(i) + "]";
    const Value& c = v[i];
    if (!c.IsObject() || !c.HasMember("name") || !c["name"].IsString()) {
      return FieldError(at + ".name", "Required value");
    }
    PluginConfig pc{c["name"].GetString(), ""};
    if (!seen.insert(pc.name).second) return FieldError(at, "Duplicate value: \"" + pc.name + "\"");
    for (auto m = c.MemberBegin(); m != c.MemberEnd(); ++m) {
      std::string key = m->name.GetString();
      if (key == "args") {
        pc.args_json = ToJson(m->value);
      } else if (key != "name") {
        return FieldError(at + "." + key, "unknown field");
      }
    }
    out.push_back(std::move(pc));
  }
  return out;
}

Result<ProfileConfig> ParseProfile(const Value& v, const std::string& path) {
  if (!v.IsObject()) return FieldError(path, "must be an object");
  ProfileConfig prof;
  prof.plugins.multi_point = MergeMultiPoint({});
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    std::string key = m->name.GetString();
    std::string at = path + "." + key;
    if (key == "schedulerName") {
      if (!m->value.IsString() || m->value.GetStringLength() == 0) {
        return FieldError(at, "Required value");
      }
      prof.scheduler_name = m->value.GetString();
    } else if (key == "percentageOfNodesToScore") {
      ALLOT_ASSIGN_OR_RETURN(int64_t pct, IntField(m->value, at, 0, 100));
      prof.percentage_of_nodes_to_score = static_cast<int32_t>(pct);
    } else if (key == "plugins") {
      ALLOT_ASSIGN_OR_RETURN(prof.plugins, ParsePlugins(m->value, at));
    } else if (key == "pluginConfig") {
      ALLOT_ASSIGN_OR_RETURN(prof.plugin_config, ParsePluginConfig(m->value, at));
    } else {
      return FieldError(at, "unknown field");
    }
  }
  return prof;
}

allot::Status ParseTopLevel(const Value& doc, Configuration& cfg) {
  static const std::set<std::string> kIgnored = {"apiVersion",
                                                 "kind",
                                                 "leaderElection",
                                                 "clientConnection",
                                                 "debuggingConfiguration",
                                                 "enableProfiling",
                                                 "enableContentionProfiling",
                                                 "healthzBindAddress",
                                                 "metricsBindAddress",
                                                 "extenders",
                                                 "delayCacheUntilActive"};
  auto millis = [](int64_t s) { return std::chrono::milliseconds(s * 1000); };
  for (auto m = doc.MemberBegin(); m != doc.MemberEnd(); ++m) {
    std::string key = m->name.GetString();
    const Value& v = m->value;
    if (key == "parallelism") {
      ALLOT_ASSIGN_OR_RETURN(int64_t x, IntField(v, key, 1, 1024));
      cfg.parallelism = static_cast<int32_t>(x);
    } else if (key == "percentageOfNodesToScore") {
      ALLOT_ASSIGN_OR_RETURN(int64_t x, IntField(v, key, 0, 100));
      cfg.percentage_of_nodes_to_score = static_cast<int32_t>(x);
    } else if (key == "podInitialBackoffSeconds") {
      ALLOT_ASSIGN_OR_RETURN(int64_t x, IntField(v, key, 1, 1 << 20));
      cfg.pod_initial_backoff = millis(x);
    } else if (key == "podMaxBackoffSeconds") {
      ALLOT_ASSIGN_OR_RETURN(int64_t x, IntField(v, key, 1, 1 << 20));
      cfg.pod_max_backoff = millis(x);
    } else if (key == "podMaxInUnschedulablePodsSeconds") {
      ALLOT_ASSIGN_OR_RETURN(int64_t x, IntField(v, key, 1, 1 << 24));
      cfg.pod_max_in_unschedulable_pods = millis(x);
    } else if (key == "assumedPodTTLSeconds") {
      ALLOT_ASSIGN_OR_RETURN(int64_t x, IntField(v, key, 0, 1 << 24));
      cfg.assumed_pod_ttl = millis(x);
    } else if (key == "profiles") {
      if (!v.IsArray()) return FieldError(key, "must be a list");
      cfg.profiles.clear();
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        ALLOT_ASSIGN_OR_RETURN(ProfileConfig p,
                               ParseProfile(v[i], "profiles[" + std::to_string(i) + "]"));
        cfg.profiles.push_back(std::move(p));
      }
    } else if (!kIgnored.count(key)) {
      return FieldError(key, "unknown field");
    }
  }
  return allot::Status::Ok();
}

}  // namespace

std::string_view ProfileConfig::ArgsFor(std::string_view plugin) const {
  for (const PluginConfig& c : plugin_config) {
    if (c.name == plugin) return c.args_json;
  }
  return {};
}

std::vector<PluginRef> DefaultPlugins() {
  return {{"SchedulingGates", 0}, {"PrioritySort", 0},     {"NodeUnschedulable", 0},
          {"NodeName", 0},        {"TaintToleration", 3},  {"NodeAffinity", 2},
          {"NodePorts", 0},       {"NodeResourcesFit", 1}, {"NodeResourcesBalancedAllocation", 1},
          {"DynamicResources", 1}, {"Reservation", 5},      {"DefaultPreemption", 0},
          {"DefaultBinder", 0}};
}

ProfileConfig DefaultProfile() {
  ProfileConfig p;
  p.plugins.multi_point.enabled = DefaultPlugins();
  return p;
}

Configuration DefaultConfiguration() {
  Configuration c;
  c.profiles.push_back(DefaultProfile());
  return c;
}

Result<Configuration> ParseConfiguration(std::string_view yaml) {
  ALLOT_ASSIGN_OR_RETURN(std::string json, api::YamlDocumentToJson(yaml));
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) return allot::BadRequestError("configuration is not valid YAML/JSON");
  Configuration cfg = DefaultConfiguration();
  if (doc.IsNull()) return cfg;
  if (!doc.IsObject()) return allot::BadRequestError("configuration must be an object");
  if (doc.HasMember("kind") && (!doc["kind"].IsString() || std::string(doc["kind"].GetString()) !=
                                                               "KubeSchedulerConfiguration")) {
    return FieldError("kind", "must be KubeSchedulerConfiguration");
  }
  ALLOT_RETURN_IF_ERROR(ParseTopLevel(doc, cfg));
  if (cfg.profiles.empty()) cfg.profiles.push_back(DefaultProfile());
  std::set<std::string> names;
  for (size_t i = 0; i < cfg.profiles.size(); ++i) {
    if (!names.insert(cfg.profiles[i].scheduler_name).second) {
      return FieldError("profiles[" + std::to_string(i) + "].schedulerName",
                        "Duplicate value: \"" + cfg.profiles[i].scheduler_name + "\"");
    }
  }
  if (cfg.pod_max_backoff < cfg.pod_initial_backoff) {
    return FieldError("podMaxBackoffSeconds",
                      "must be greater than or equal to "
                      "podInitialBackoffSeconds");
  }
  return cfg;
}

}  // namespace allot::scheduler
