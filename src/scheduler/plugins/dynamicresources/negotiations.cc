#include "scheduler/plugins/dynamicresources/negotiations.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace allot::scheduler {

Negotiations::Negotiations(TimeoutFor timeout_for) : timeout_for_(std::move(timeout_for)) {}

Negotiations::TimePoint Negotiations::DeadlineOf(const Entry& e) const {
  std::optional<TimePoint> out;
  for (const std::string& d : e.drivers) {
    TimePoint t = e.since + timeout_for_(d);
    if (!out || t < *out) out = t;
  }
  return out.value_or(e.since);
}

bool Negotiations::Waiting(const std::string& pod_uid, const std::string& ns,
                           const std::string& name, const api::PodSchedulingContextSpec& published,
                           std::vector<std::string> drivers, TimePoint now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = entries_.try_emplace(pod_uid);
  Entry& e = it->second;
  if (added) {
    e.ns = ns;
    e.name = name;
    e.first = now;
  }
  if (added || e.published != published) {
    e.since = now;
    if (!published.selectedNode.empty() &&
        (added || e.published.selectedNode != published.selectedNode)) {
      e.selected_at = now;
    }
    e.published = published;
  }
  e.drivers = std::move(drivers);
  ++e.rounds;
  e.deadline = DeadlineOf(e);
  return added;
}

std::optional<Negotiations::Finished> Negotiations::Finish(const std::string& pod_uid,
                                                           TimePoint now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(pod_uid);
  if (it == entries_.end()) return std::nullopt;
  const Entry& e = it->second;
  Finished f;
  f.rounds = e.rounds;
  if (e.selected_at) {
    f.to_selected = *e.selected_at - e.first;
    f.to_allocated = now - *e.selected_at;
  }
  f.held = std::move(it->second.held);
  entries_.erase(it);
  return f;
}

std::vector<Negotiations::Expired> Negotiations::Expire(TimePoint now) {
  std::vector<Expired> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    const Entry& e = it->second;
    if (e.deadline > now) {
      ++it;
      continue;
    }
    Expired x{it->first,
              e.ns,
              e.name,
              {},
              e.published.selectedNode,
              std::chrono::duration_cast<std::chrono::seconds>(now - e.since),
              e.held};
    for (const std::string& d : e.drivers) {
      if (e.since + timeout_for_(d) <= now) x.drivers.push_back(d);
    }
    out.push_back(std::move(x));
    it = entries_.erase(it);
  }
  return out;
}

std::vector<std::string> Negotiations::Unsuitable(const std::string& pod_uid,
                                                  const std::string& claim,
                                                  std::vector<std::string> reported) {
  std::sort(reported.begin(), reported.end());
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(pod_uid);
  if (it == entries_.end()) return reported;
  std::vector<std::string>& known = it->second.unsuitable[claim];
  std::vector<std::string> merged;
  merged.reserve(known.size() + reported.size());
  std::set_union(known.begin(), known.end(), reported.begin(), reported.end(),
                 std::back_inserter(merged));
  known = merged;
  return merged;
}

std::vector<std::string> Negotiations::Forget(const std::string& pod_uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(pod_uid);
  if (it == entries_.end()) return {};
  std::vector<std::string> held = std::move(it->second.held);
  entries_.erase(it);
  return held;
}

bool Negotiations::Hold(const std::string& pod_uid, std::vector<std::string> claim_uids) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(pod_uid);
  if (it == entries_.end()) return false;
  it->second.held = std::move(claim_uids);
  return true;
}

std::vector<std::string> Negotiations::TakeHeld(const std::string& pod_uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(pod_uid);
  if (it == entries_.end()) return {};
  return std::exchange(it->second.held, {});
}

std::map<std::string, int, std::less<>> Negotiations::SelectedNodes(
    const std::string& except) const {
  std::map<std::string, int, std::less<>> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [uid, e] : entries_) {
    if (uid != except && !e.published.selectedNode.empty()) ++out[e.published.selectedNode];
  }
  return out;
}

size_t Negotiations::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace allot::scheduler
