#include "scheduler/framework/waiting_pods.h"

#include <cstdio>

namespace allot::scheduler {

std::string GoDurationString(std::chrono::milliseconds d) {
  int64_t ms = d.count();
  if (ms == 0) return "0s";
  std::string sign = ms < 0 ? "-" : "";
  if (ms < 0) ms = -ms;
  if (ms < 1000) return sign + std::to_string(ms) + "ms";
  int64_t h = ms / 3600000, m = ms / 60000 % 60, s = ms / 1000 % 60, frac = ms % 1000;
  std::string secs = std::to_string(s);
  if (frac != 0) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%03lld", static_cast<long long>(frac));
    std::string f = buf;
    while (!f.empty() && f.back() == '0') f.pop_back();
    secs += "." + f;
  }
  std::string out = sign;
  if (h > 0) out += std::to_string(h) + "h";
  if (h > 0 || m > 0) out += std::to_string(m) + "m";
  return out + secs + "s";
}

WaitingPod::WaitingPod(PodInfoPtr pod, std::string node,
                       std::vector<std::pair<std::string_view, std::chrono::milliseconds>> timeouts,
                       TimePoint now)
    : pod_(std::move(pod)), node_(std::move(node)), started_(now) {
  for (const auto& [plugin, timeout] : timeouts) pending_[plugin] = timeout;
}

std::vector<std::string> WaitingPod::pending_plugins() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [plugin, timeout] : pending_) out.emplace_back(plugin);
  return out;
}

void WaitingPod::Allow(std::string_view plugin) {
  std::unique_lock<std::mutex> lock(mu_);
  if (result_) return;
  pending_.erase(plugin);
  if (pending_.empty()) Finish(lock, Status::Success());
}

void WaitingPod::Reject(std::string_view plugin, std::string message) {
  std::unique_lock<std::mutex> lock(mu_);
  if (result_) return;
  Status st(Code::kUnschedulable, std::move(message));
  st.WithPlugin(plugin);
  Finish(lock, std::move(st));
}

bool WaitingPod::CheckTimeout(TimePoint now) {
  std::unique_lock<std::mutex> lock(mu_);
  if (result_) return false;
  for (const auto& [plugin, timeout] : pending_) {
    if (now < started_ + timeout) continue;
    Status st(Code::kUnschedulable, "rejected due to timeout after waiting " +
                                        GoDurationString(timeout) + " at plugin " +
                                        std::string(plugin));
    st.WithPlugin(plugin);
    Finish(lock, std::move(st));
    return true;
  }
  return false;
}

void WaitingPod::OnDone(std::function<void(Status)> done) {
  std::unique_lock<std::mutex> lock(mu_);
  if (result_) {
    Status st = *result_;
    lock.unlock();
    done(std::move(st));
    return;
  }
  done_ = std::move(done);
}

void WaitingPod::Finish(std::unique_lock<std::mutex>& lock, Status status) {
  result_ = status;
  auto done = std::move(done_);
  done_ = nullptr;
  lock.unlock();
  if (done) done(std::move(status));
}

void WaitingPods::Add(std::shared_ptr<WaitingPod> pod) {
  std::lock_guard<std::mutex> lock(mu_);
  pods_[pod->pod().uid()] = std::move(pod);
}

void WaitingPods::Remove(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  pods_.erase(uid);
}

std::shared_ptr<WaitingPod> WaitingPods::Get(const std::string& uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<WaitingPod>> WaitingPods::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<WaitingPod>> out;
  for (const auto& [uid, p] : pods_) out.push_back(p);
  return out;
}

void WaitingPods::CheckTimeouts(WaitingPod::TimePoint now) {
  for (const auto& p : List()) p->CheckTimeout(now);
}

size_t WaitingPods::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_.size();
}

}  // namespace allot::scheduler
