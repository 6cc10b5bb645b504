#include "node/dra/plugin.h"

namespace allot::node {

Status DraPluginRegistry::Register(DraKubeletPlugin& plugin) {
  std::string driver(plugin.driver_name());
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = plugins_.emplace(driver, &plugin);
  if (!inserted && it->second != &plugin) {
    return Status(StatusCode::kAlreadyExists,
                  "a plugin for driver " + driver + " is already registered");
  }
  return Status::Ok();
}

void DraPluginRegistry::Unregister(std::string_view driver) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plugins_.find(driver);
  if (it != plugins_.end()) plugins_.erase(it);
}

DraKubeletPlugin* DraPluginRegistry::Find(std::string_view driver) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plugins_.find(driver);
  return it == plugins_.end() ? nullptr : it->second;
}

std::vector<std::string> DraPluginRegistry::Drivers() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [driver, plugin] : plugins_) out.push_back(driver);
  return out;
}

}  // namespace allot::node
