#include "sim/recorder.h"

#include <algorithm>
#include <cmath>

#include "api/core/pod.h"
#include "api/koordinator/reservation.h"
#include "api/machinery/resources.h"
#include "api/resource/types.h"

namespace allot::sim {

namespace {

std::string DeviceKey(std::string_view driver, std::string_view pool, std::string_view device) {
  std::string key;
  key.reserve(driver.size() + pool.size() + device.size() + 2);
  key.append(driver).append("/").append(pool).append("/").append(device);
  return key;
}

bool ConditionTrue(const std::vector<api::Condition>& conditions, const std::string& type) {
  for (const api::Condition& c : conditions) {
    if (c.type == type) return c.status == "True";
  }
  return false;
}

// The p-th quantile (0..1) of sorted values; 0 for none.
double Quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t i = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size()))) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

Recorder::Recorder(SimClock& clock, client::InformerFactory& informers, DeviceLayout layout)
    : clock_(clock), start_(clock.Now()), layout_(std::move(layout)) {
  informers.For(api::ResourceFor<api::Pod>())
      .AddHandler(
          {.on_add = [this](const api::ObjectPtr& o) { OnPod(o, false); },
           .on_update = [this](const api::ObjectPtr&, const api::ObjectPtr& o) { OnPod(o, false); },
           .on_delete = [this](const api::ObjectPtr& o) { OnPod(o, true); }});
  informers.For(api::ResourceFor<api::ResourceClaim>())
      .AddHandler({.on_add = [this](const api::ObjectPtr& o) { OnClaim(o, false); },
                   .on_update = [this](const api::ObjectPtr&,
                                       const api::ObjectPtr& o) { OnClaim(o, false); },
                   .on_delete = [this](const api::ObjectPtr& o) { OnClaim(o, true); }});
  informers.For(api::ResourceFor<api::Reservation>())
      .AddHandler({.on_add = [this](const api::ObjectPtr& o) { OnReservation(o, false); },
                   .on_update = [this](const api::ObjectPtr&,
                                       const api::ObjectPtr& o) { OnReservation(o, false); },
                   .on_delete = [this](const api::ObjectPtr& o) { OnReservation(o, true); }});
}

double Recorder::Now() const {
  return static_cast<double>(clock_.Now().unix_micros - start_.unix_micros) / 1e6;
}

void Recorder::OnPod(const api::ObjectPtr& obj, bool deleted) {
  const api::Pod* pod = obj ? api::As<api::Pod>(*obj) : nullptr;
  if (!pod) return;
  auto workload = pod->metadata.labels.find(kWorkloadLabel);
  if (workload == pod->metadata.labels.end()) return;
  const double now = Now();
  std::lock_guard<std::mutex> lock(mu_);
  PodRecord& rec = pods_[pod->metadata.uid];
  if (rec.created < 0) {
    rec.created = now;
    rec.workload = workload->second;
  }
  if (rec.bound < 0 && !pod->spec.nodeName.empty()) rec.bound = now;
  for (const api::PodCondition& c : pod->status.conditions) {
    if (c.type == "DisruptionTarget" && c.status == "True" && c.reason == "PreemptionByScheduler") {
      rec.preempted = true;
    }
  }
  if (rec.finished < 0 && !rec.preempted &&
      (pod->status.phase == "Succeeded" || pod->status.phase == "Failed")) {
    rec.finished = now;
  }
  if (deleted) rec.deleted = true;
}

void Recorder::Release(ClaimRecord& rec) {
  for (const Allocation& a : rec.devices) {
    held_.erase(DeviceKey(a.driver, a.pool, a.device));
    if (!a.device_class.empty()) --allocated_by_class_[a.device_class];
  }
  rec.waiting = false;
  rec.devices.clear();
}

void Recorder::OnClaim(const api::ObjectPtr& obj, bool deleted) {
  const api::ResourceClaim* claim = obj ? api::As<api::ResourceClaim>(*obj) : nullptr;
  if (!claim) return;
  const double now = Now();
  std::lock_guard<std::mutex> lock(mu_);
  const std::string& uid = claim->metadata.uid;
  auto it = claims_.find(uid);
  const bool allocated = !deleted && claim->status.allocation.has_value();
  if (!allocated) {
    if (it != claims_.end()) {
      Release(it->second);
      claims_.erase(it);
    }
    return;
  }
  if (it == claims_.end()) {
    ClaimRecord rec;
    rec.allocated = now;
    for (const auto& ref : claim->metadata.ownerReferences) {
      if (ref.kind == "Reservation") rec.reservation = true;
    }
    bool conditions = false;
    for (const api::DeviceRequestAllocationResult& r : claim->status.allocation->devices.results) {
      std::string device_class;
      const std::string request = r.request.str().substr(0, r.request.str().find('/'));
      for (const api::DeviceRequest& req : claim->spec.devices.requests) {
        if (req.name == request && req.exactly) device_class = req.exactly->deviceClassName;
      }
      rec.devices.push_back({r.driver, r.pool, r.device, device_class});
      held_[DeviceKey(r.driver, r.pool, r.device)] = rec.reservation ? 2 : 1;
      if (!device_class.empty()) ++allocated_by_class_[device_class];
      if (!r.rare->bindingConditions.empty()) conditions = true;
    }
    rec.waiting = conditions;
    it = claims_.emplace(uid, std::move(rec)).first;
  }
  ClaimRecord& rec = it->second;
  if (!rec.waiting) return;
  // Waiting on binding conditions: ready once every device that has some reports them all;
  // failed as soon as one reports a failure condition.
  bool ready = true, failed = false;
  for (const api::DeviceRequestAllocationResult& r : claim->status.allocation->devices.results) {
    if (r.rare->bindingConditions.empty()) continue;
    const api::AllocatedDeviceStatus* status = nullptr;
    for (const api::AllocatedDeviceStatus& s : claim->status.devices) {
      if (s.driver == r.driver && s.pool == r.pool && s.device == r.device) status = &s;
    }
    if (!status) {
      ready = false;
      continue;
    }
    for (const std::string& c : r.rare->bindingConditions)
      ready = ready && ConditionTrue(status->conditions, c);
    for (const std::string& c : r.rare->bindingFailureConditions) {
      failed = failed || ConditionTrue(status->conditions, c);
    }
  }
  if (failed) {
    ++attach_failures_;
    rec.waiting = false;
  } else if (ready) {
    ++attaches_;
    attach_waits_.push_back(now - rec.allocated);
    rec.waiting = false;
  }
}

void Recorder::OnReservation(const api::ObjectPtr& obj, bool deleted) {
  const api::Reservation* r = obj ? api::As<api::Reservation>(*obj) : nullptr;
  if (!r) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (deleted) {
    reservation_phase_.erase(r->metadata.uid);
  } else {
    reservation_phase_[r->metadata.uid] = r->status.phase.empty() ? "Pending" : r->status.phase;
  }
}

Sample Recorder::TakeSample(double t) {
  std::lock_guard<std::mutex> lock(mu_);
  Sample s;
  s.t = t;
  for (const auto& [uid, p] : pods_) {
    if (p.bound >= 0) ++s.scheduled;
    if (p.preempted) ++s.preempted;
    if (p.finished >= 0) {
      ++s.completed;
    } else if (!p.deleted && !p.preempted) {
      if (p.bound < 0) {
        ++s.pending;
      } else {
        ++s.running;
      }
    }
  }
  for (const auto& [uid, c] : claims_) {
    if (c.waiting) ++s.attach_waiting;
  }
  s.attach_failures = attach_failures_;
  for (const auto& [name, total] : layout_.class_devices) {
    auto a = allocated_by_class_.find(name);
    const int64_t used = a == allocated_by_class_.end() ? 0 : a->second;
    s.utilisation[name] = total > 0 ? static_cast<double>(used) / static_cast<double>(total) : 0;
  }
  for (const auto& [uid, phase] : reservation_phase_) ++s.reservations[phase];
  return s;
}

Heatmap Recorder::TakeHeatmap(double t) {
  std::lock_guard<std::mutex> lock(mu_);
  Heatmap h;
  h.t = t;
  for (const DeviceLayout::Row& row : layout_.rows) {
    if (row.devices.size() > h.columns.size()) h.columns = row.devices;
  }
  for (const DeviceLayout::Row& row : layout_.rows) {
    h.rows.push_back(row.name);
    std::vector<int> cells(h.columns.size(), -1);
    for (size_t i = 0; i < row.devices.size() && i < cells.size(); ++i) {
      auto held = held_.find(DeviceKey(row.driver, row.pool, row.devices[i]));
      cells[i] = held == held_.end() ? 0 : held->second;
    }
    h.cells.push_back(std::move(cells));
  }
  return h;
}

void Recorder::Finish(double end, VariantResult& out) {
  std::lock_guard<std::mutex> lock(mu_);
  Summary& s = out.summary;
  double last_finish = 0;
  bool all_finished = !pods_.empty();
  std::map<std::string, std::vector<double>> workload_waits;
  for (const auto& [uid, p] : pods_) {
    WorkloadSummary& w = s.workloads[p.workload];
    ++s.pods, ++w.pods;
    if (p.bound >= 0) {
      ++s.scheduled, ++w.scheduled;
      out.waits.push_back(p.bound - p.created);
      workload_waits[p.workload].push_back(p.bound - p.created);
    }
    if (p.preempted) ++s.preempted, ++w.preempted;
    if (p.deleted && p.bound >= 0 && p.finished < 0 && !p.preempted) ++s.lost, ++w.lost;
    if (p.finished >= 0) {
      ++s.completed, ++w.completed;
      last_finish = std::max(last_finish, p.finished);
    } else {
      all_finished = false;
      if (p.bound < 0 && !p.deleted && !p.preempted) ++s.unschedulable, ++w.unschedulable;
    }
  }
  if (all_finished) s.makespan = last_finish;
  auto quantiles = [](std::vector<double>& waits, auto& into) {
    std::sort(waits.begin(), waits.end());
    into.wait_p50 = Quantile(waits, 0.5);
    into.wait_p90 = Quantile(waits, 0.9);
    into.wait_p99 = Quantile(waits, 0.99);
    into.wait_max = waits.empty() ? 0 : waits.back();
  };
  quantiles(out.waits, s);
  for (auto& [name, waits] : workload_waits) quantiles(waits, s.workloads[name]);
  out.attach_waits = attach_waits_;
  std::sort(out.attach_waits.begin(), out.attach_waits.end());
  s.attaches = attaches_;
  s.attach_failures = attach_failures_;
  s.attach_wait_p50 = Quantile(out.attach_waits, 0.5);
  s.attach_wait_p99 = Quantile(out.attach_waits, 0.99);
  // Time-averaged utilisation: each sample holds until the next.
  for (const auto& [name, total] : layout_.class_devices) {
    out.device_classes.push_back(name);
    double area = 0;
    for (size_t i = 0; i + 1 < out.samples.size(); ++i) {
      auto u = out.samples[i].utilisation.find(name);
      if (u != out.samples[i].utilisation.end()) {
        area += u->second * (out.samples[i + 1].t - out.samples[i].t);
      }
    }
    s.utilisation[name] = end > 0 ? area / end : 0;
  }
  s.simulated_seconds = end;
}

}  // namespace allot::sim
