// ResultJson: SimResult as JSON, with rapidjson's writer. Numbers are written as measured;
// an absent makespan is null.
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <set>

#include "sim/report.h"

namespace allot::sim {

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void Str(Writer& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void Doubles(Writer& w, const std::vector<double>& v) {
  w.StartArray();
  for (double d : v) w.Double(d);
  w.EndArray();
}

// "waitSeconds": {p50, p90, p99, max} of a Summary or a WorkloadSummary.
template <typename S>
void WriteWaits(Writer& w, const S& s) {
  w.Key("waitSeconds");
  w.StartObject();
  w.Key("p50"), w.Double(s.wait_p50);
  w.Key("p90"), w.Double(s.wait_p90);
  w.Key("p99"), w.Double(s.wait_p99);
  w.Key("max"), w.Double(s.wait_max);
  w.EndObject();
}

void WriteSummary(Writer& w, const Summary& s) {
  w.StartObject();
  w.Key("pods"), w.Int64(s.pods);
  w.Key("scheduled"), w.Int64(s.scheduled);
  w.Key("unschedulable"), w.Int64(s.unschedulable);
  w.Key("completed"), w.Int64(s.completed);
  w.Key("preempted"), w.Int64(s.preempted);
  w.Key("lost"), w.Int64(s.lost);
  w.Key("makespanSeconds");
  if (s.makespan) {
    w.Double(*s.makespan);
  } else {
    w.Null();
  }
  WriteWaits(w, s);
  w.Key("utilisation");
  w.StartObject();
  for (const auto& [k, v] : s.utilisation) w.Key(k.c_str()), w.Double(v);
  w.EndObject();
  w.Key("attaches"), w.Int64(s.attaches);
  w.Key("attachFailures"), w.Int64(s.attach_failures);
  w.Key("attachWaitSeconds");
  w.StartObject();
  w.Key("p50"), w.Double(s.attach_wait_p50);
  w.Key("p99"), w.Double(s.attach_wait_p99);
  w.EndObject();
  w.Key("simulatedSeconds"), w.Double(s.simulated_seconds);
  w.Key("workloads");
  w.StartObject();
  for (const auto& [name, ws] : s.workloads) {
    w.Key(name.c_str());
    w.StartObject();
    w.Key("pods"), w.Int64(ws.pods);
    w.Key("scheduled"), w.Int64(ws.scheduled);
    w.Key("unschedulable"), w.Int64(ws.unschedulable);
    w.Key("completed"), w.Int64(ws.completed);
    w.Key("preempted"), w.Int64(ws.preempted);
    w.Key("lost"), w.Int64(ws.lost);
    WriteWaits(w, ws);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
}

void WriteSamples(Writer& w, const VariantResult& v) {
  w.StartObject();
  auto series = [&](const char* name, auto get) {
    w.Key(name);
    w.StartArray();
    for (const Sample& s : v.samples) get(s);
    w.EndArray();
  };
  series("t", [&](const Sample& s) { w.Double(s.t); });
  series("pending", [&](const Sample& s) { w.Int64(s.pending); });
  series("running", [&](const Sample& s) { w.Int64(s.running); });
  series("completed", [&](const Sample& s) { w.Int64(s.completed); });
  series("scheduled", [&](const Sample& s) { w.Int64(s.scheduled); });
  series("preempted", [&](const Sample& s) { w.Int64(s.preempted); });
  series("attachWaiting", [&](const Sample& s) { w.Int64(s.attach_waiting); });
  series("attachFailures", [&](const Sample& s) { w.Int64(s.attach_failures); });
  w.Key("utilisation");
  w.StartObject();
  for (const std::string& c : v.device_classes) {
    series(c.c_str(), [&](const Sample& s) {
      auto it = s.utilisation.find(c);
      w.Double(it == s.utilisation.end() ? 0 : it->second);
    });
  }
  w.EndObject();
  std::set<std::string> phases;
  for (const Sample& s : v.samples) {
    for (const auto& [p, n] : s.reservations) phases.insert(p);
  }
  w.Key("reservations");
  w.StartObject();
  for (const std::string& p : phases) {
    series(p.c_str(), [&](const Sample& s) {
      auto it = s.reservations.find(p);
      w.Int64(it == s.reservations.end() ? 0 : it->second);
    });
  }
  w.EndObject();
  w.EndObject();
}

void WriteHeatmap(Writer& w, const Heatmap& h) {
  w.StartObject();
  w.Key("t"), w.Double(h.t);
  w.Key("rows");
  w.StartArray();
  for (const std::string& r : h.rows) Str(w, r);
  w.EndArray();
  w.Key("columns");
  w.StartArray();
  for (const std::string& c : h.columns) Str(w, c);
  w.EndArray();
  w.Key("cells");
  w.StartArray();
  for (const auto& row : h.cells) {
    w.StartArray();
    for (int c : row) w.Int(c);
    w.EndArray();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string ResultJson(const SimResult& result) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.SetIndent(' ', 1);
  w.StartObject();
  w.Key("scenario"), Str(w, result.scenario);
  w.Key("seed"), w.Uint64(result.seed);
  w.Key("durationSeconds"), w.Double(result.duration);
  w.Key("variants");
  w.StartArray();
  for (const VariantResult& v : result.variants) {
    w.StartObject();
    w.Key("name"), Str(w, v.name);
    w.Key("summary");
    WriteSummary(w, v.summary);
    w.Key("series");
    WriteSamples(w, v);
    w.Key("waitSeconds");
    Doubles(w, v.waits);
    w.Key("attachWaitSeconds");
    Doubles(w, v.attach_waits);
    w.Key("heatmaps");
    w.StartArray();
    for (const Heatmap& h : v.heatmaps) WriteHeatmap(w, h);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace allot::sim
