#include "client/informer_factory.h"

#include <algorithm>

namespace allot::client {

InformerFactory::~InformerFactory() { StopAll(); }

Informer& InformerFactory::For(const ResourceInfo& resource, const InformerOptions& options) {
  Key key{&resource, options.namespace_, options.label_selector, options.field_selector};
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = informers_[key];
  if (!slot) slot = std::make_unique<Informer>(client_, resource, options);
  return *slot;
}

Status InformerFactory::StartAll() {
  std::lock_guard<std::mutex> lock(mu_);
  Status first;
  for (auto& [key, informer] : informers_) {
    if (std::find(started_.begin(), started_.end(), informer.get()) != started_.end()) continue;
    Status st = informer->Start();
    if (st.ok()) {
      started_.push_back(informer.get());
    } else if (first.ok()) {
      first = std::move(st);
    }
  }
  return first;
}

bool InformerFactory::WaitForCacheSync(std::chrono::milliseconds timeout) {
  std::vector<Informer*> started;
  {
    std::lock_guard<std::mutex> lock(mu_);
    started = started_;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (Informer* informer : started) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!informer->WaitForSync(std::max(left, std::chrono::milliseconds(0)))) return false;
  }
  return true;
}

std::string InformerFactory::Unsynced() const {
  std::vector<Informer*> started;
  {
    std::lock_guard<std::mutex> lock(mu_);
    started = started_;
  }
  std::string out;
  for (Informer* informer : started) {
    if (informer->HasSynced()) continue;
    if (!out.empty()) out += "; ";
    out += informer->resource().QualifiedResource();
    Status st = informer->LastListError();
    if (!st.ok()) out += " (" + st.ToString() + ")";
  }
  return out;
}

void InformerFactory::StopAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, informer] : informers_) informer->Stop();
}

}  // namespace allot::client
