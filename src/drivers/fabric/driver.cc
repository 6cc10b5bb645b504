// FabricDriver: lifecycle, Tick, the background thread and stats. The per-device state machine
// is in drivers/fabric/reconcile.cc, claim status writes in drivers/fabric/status.cc, slices in
// drivers/fabric/publish.cc.
#include "drivers/fabric/driver.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "api/resource/types.h"
#include "drivers/fabric/devices.h"
#include "drivers/fabric/internal.h"
#include "drivers/nodelocal/driver.h"

namespace allot::drivers {

namespace {

// How soon a failed status write or publish is retried.
constexpr std::chrono::seconds kRetryAfter{1};

std::vector<std::string> PoolNames(const FabricConfig& config) {
  std::vector<std::string> out;
  for (const FabricPoolConfig& p : config.pools) out.push_back(FabricPoolName(p.model));
  return out;
}

}  // namespace

Time TimeAfter(Time t, std::chrono::microseconds d) { return Time{t.unix_micros + d.count()}; }

uint64_t ResourceVersionNumber(const std::string& rv) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  return ec == std::errc() && ptr == rv.data() + rv.size() ? v : 0;
}

std::vector<std::string> FabricClaimIndexValues(const api::Object& obj, const std::string& driver,
                                                const std::vector<std::string>& pools) {
  std::vector<std::string> out;
  const auto* claim = api::As<api::ResourceClaim>(obj);
  if (claim == nullptr || !claim->status.allocation) return out;
  for (const api::DeviceRequestAllocationResult& r : claim->status.allocation->devices.results) {
    if (r.driver == driver && std::find(pools.begin(), pools.end(), r.pool) != pools.end()) {
      out.push_back(r.pool + "/" + r.device);
    }
  }
  return out;
}

const std::vector<std::string>& BindingTypes(const FabricConfig& config,
                                             const api::DeviceRequestAllocationResult& r) {
  return r.rare->bindingConditions.empty() ? config.binding_conditions : r.rare->bindingConditions;
}

const std::vector<std::string>& FailureTypes(const FabricConfig& config,
                                             const api::DeviceRequestAllocationResult& r) {
  return r.rare->bindingFailureConditions.empty() ? config.binding_failure_conditions
                                                  : r.rare->bindingFailureConditions;
}

FabricDriver::FabricDriver(client::Client& client, Clock& clock, FabricConfig config,
                           FabricDriverOptions options)
    : client_(client),
      clock_(clock),
      config_(std::move(config)),
      options_(std::move(options)),
      claims_res_(api::ResourceFor<api::ResourceClaim>()),
      slices_res_(api::ResourceFor<api::ResourceSlice>()),
      index_name_("allot.dev/fabric-devices:" + config_.driver),
      config_status_(ValidateFabricConfig(config_)),
      wakeup_(std::make_shared<Wakeup>(clock)),
      rng_(config_.seed) {
  metrics::Registry* registry = options_.metrics;
  if (registry == nullptr) {
    own_registry_ = std::make_unique<metrics::Registry>();
    registry = own_registry_.get();
  }
  auto& attaches = registry->AddCounter(
      "allot_fabric_attach_total",
      "Fabric device attaches by result: success, failure (simulated), or cancelled because the "
      "allocation went away first.",
      metrics::Stability::kAlpha, {"driver", "result"});
  attach_success_ = &attaches.With({config_.driver, "success"});
  attach_failure_ = &attaches.With({config_.driver, "failure"});
  attach_cancelled_ = &attaches.With({config_.driver, "cancelled"});
  detach_total_ =
      &registry
           ->AddCounter("allot_fabric_detach_total", "Fabric devices detached from their node.",
                        metrics::Stability::kAlpha, {"driver"})
           .With({config_.driver});
  if (!config_status_.ok()) return;  // Start() reports it
  for (size_t p = 0; p < config_.pools.size(); ++p) {
    const FabricPoolConfig& pool = config_.pools[p];
    for (int64_t i = 0; i < pool.count; ++i) {
      Device& d = devices_.emplace_back();
      d.pool = p;
      d.index = i;
      d.pool_name = FabricPoolName(pool.model);
      d.name = FabricDeviceName(pool.model, i);
    }
  }
  generations_.assign(config_.pools.size(), 0);
}

FabricDriver::~FabricDriver() { Stop(); }

Status FabricDriver::Start(std::chrono::milliseconds sync_timeout) {
  std::lock_guard<std::mutex> start_lock(start_mu_);
  if (started_) return Status::Ok();
  ALLOT_RETURN_IF_ERROR(config_status_);
  if (!wired_) {
    client::Informer* claims = options_.shared_claims;
    if (claims == nullptr) {
      own_claims_ = std::make_unique<client::Informer>(client_, claims_res_);
      claims = own_claims_.get();
    }
    std::string driver = config_.driver;
    std::vector<std::string> pools = PoolNames(config_);
    claims->AddIndex(index_name_, [driver, pools](const api::Object& o) {
      return FabricClaimIndexValues(o, driver, pools);
    });
    auto ours = [driver, pools](const api::ObjectPtr& o) {
      return o && !FabricClaimIndexValues(*o, driver, pools).empty();
    };
    std::weak_ptr<Wakeup> weak = wakeup_;
    auto wake = [weak] {
      if (auto w = weak.lock()) w->Raise();
    };
    claims->AddHandler({
        .on_add =
            [ours, wake](const api::ObjectPtr& o) {
              if (ours(o)) wake();
            },
        .on_update =
            [ours, wake](const api::ObjectPtr& old, const api::ObjectPtr& o) {
              if (ours(old) || ours(o)) wake();
            },
        .on_delete =
            [ours, wake](const api::ObjectPtr& o) {
              if (ours(o)) wake();
            },
    });
    std::lock_guard<std::mutex> lock(mu_);
    claims_ = claims;
    wired_ = true;
  }
  if (own_claims_) ALLOT_RETURN_IF_ERROR(own_claims_->Start());
  if (!claims_->WaitForSync(sync_timeout)) {
    return Status(StatusCode::kTimeout, "fabric driver: the resourceclaims informer did not sync");
  }
  started_ = true;
  Tick();
  return Status::Ok();
}

Status FabricDriver::Run() {
  ALLOT_RETURN_IF_ERROR(Start());
  std::lock_guard<std::mutex> start_lock(start_mu_);
  {
    std::lock_guard<std::mutex> lock(wakeup_->mu);
    if (wakeup_->stopping) return Status::Ok();
  }
  if (!runner_.joinable()) runner_ = std::thread([this] { RunLoop(); });
  return Status::Ok();
}

void FabricDriver::Stop() {
  {
    std::lock_guard<std::mutex> lock(wakeup_->mu);
    wakeup_->stopping = true;
  }
  wakeup_->cv.notify_all();
  std::lock_guard<std::mutex> start_lock(start_mu_);
  if (runner_.joinable()) runner_.join();
  if (own_claims_) own_claims_->Stop();
}

// Run()'s thread: tick, then sleep on the Clock until the next deadline, a claim event, or
// max_idle.
void FabricDriver::RunLoop() {
  Wakeup& w = *wakeup_;
  for (;;) {
    bool woken;
    {
      std::lock_guard<std::mutex> lock(w.mu);
      if (w.stopping) return;
      woken = std::exchange(w.pending, false);
    }
    Tick();
    if (woken) clock_.EndWorkWhenWaiting();
    std::chrono::microseconds wait = options_.max_idle;
    if (std::optional<Time> next = NextDue()) {
      wait = std::clamp(std::chrono::microseconds(next->unix_micros - clock_.Now().unix_micros),
                        std::chrono::microseconds(0), wait);
    }
    std::unique_lock<std::mutex> lock(w.mu);
    clock_.WaitFor(w.cv, lock, wait, [&] { return w.stopping || w.pending; });
  }
}

void FabricDriver::Tick() {
  std::lock_guard<std::mutex> tick_lock(tick_mu_);
  const Time now = clock_.Now();
  Effects fx;
  std::vector<std::vector<api::Device>> desired;
  bool publish = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (retry_at_ && now >= *retry_at_) retry_at_.reset();
    for (Device& d : devices_) ReconcileLocked(d, now, fx);
    desired = DesiredDevicesLocked();
    publish = !published_ || *published_ != desired || now >= next_refresh_;
  }
  std::vector<WriteOutcome> outcomes;
  outcomes.reserve(fx.writes.size());
  for (const StatusWrite& w : fx.writes) outcomes.push_back(WriteStatus(w));
  uint64_t slice_writes = 0;
  Status published = publish ? Publish(desired, slice_writes) : Status::Ok();
  {
    std::lock_guard<std::mutex> lock(mu_);
    ApplyWritesLocked(fx.writes, outcomes, now, fx.logs);
    stats_.slice_writes += slice_writes;
    if (publish && published.ok()) {
      published_ = std::move(desired);
      next_refresh_ = TimeAfter(now, config_.refresh_interval);
    } else if (publish) {
      published_.reset();
      ++stats_.publish_errors;
      retry_at_ = TimeAfter(now, kRetryAfter);
      fx.logs.push_back("publishing ResourceSlices failed (will retry): " + published.message());
    }
  }
  for (const std::string& line : fx.logs) Log(line);
}

void FabricDriver::ApplyWritesLocked(const std::vector<StatusWrite>& writes,
                                     const std::vector<WriteOutcome>& outcomes, Time now,
                                     std::vector<std::string>& logs) {
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const StatusWrite& w = writes[i];
    const WriteOutcome& o = outcomes[i];
    Device& d = devices_[w.device];
    if (o.kind == WriteOutcome::Kind::kError) {
      ++stats_.status_errors;
      retry_at_ = TimeAfter(now, kRetryAfter);
      logs.push_back("writing the status of device " + d.name + " in claim " + w.ns + "/" + w.name +
                     " failed (will retry): " + o.error.message());
    } else if (o.kind == WriteOutcome::Kind::kWritten && d.claim_uid == w.uid) {
      d.reported = true;
      d.reported_rv = std::max(d.reported_rv, o.rv);
      if (o.changed) ++stats_.status_writes;
    }
    // kGone: the claim moved on; the next Tick reconciles with what it became.
  }
}

std::optional<Time> FabricDriver::NextDue() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<Time> next;
  auto consider = [&](Time t) {
    if (!next || t < *next) next = t;
  };
  if (published_) consider(next_refresh_);
  if (retry_at_) consider(*retry_at_);
  for (const Device& d : devices_) {
    if (d.phase == DevicePhase::kAttaching || d.phase == DevicePhase::kDetaching) consider(d.due);
    if (d.cooldown_until) consider(*d.cooldown_until);
  }
  return next;
}

std::vector<FabricDriver::DeviceInfo> FabricDriver::Devices() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<DeviceInfo> out;
  out.reserve(devices_.size());
  for (const Device& d : devices_) {
    out.push_back({.pool = d.pool_name,
                   .name = d.name,
                   .phase = d.phase,
                   .node = d.node,
                   .claim = d.claim_key,
                   .cooling_down = d.cooldown_until.has_value()});
  }
  return out;
}

FabricDriver::Stats FabricDriver::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void FabricDriver::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

Result<std::unique_ptr<FabricDriver>> StartFabricDriver(client::Client& client, Clock& clock,
                                                        FabricConfig config,
                                                        FabricDriverOptions options) {
  ALLOT_RETURN_IF_ERROR(ValidateFabricConfig(config));
  ALLOT_RETURN_IF_ERROR(EnsureDeviceClass(client, config.driver));
  auto driver =
      std::make_unique<FabricDriver>(client, clock, std::move(config), std::move(options));
  ALLOT_RETURN_IF_ERROR(driver->Run());
  return driver;
}

}  // namespace allot::drivers
