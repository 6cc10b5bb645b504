#include "scheduler/framework/registry.h"

namespace allot::scheduler {

allot::Status Registry::Register(std::string name, PluginFactory factory) {
  if (factories_.count(name)) {
    return allot::Status(StatusCode::kAlreadyExists, "a plugin named " + name + " already exists");
  }
  factories_.emplace(std::move(name), std::move(factory));
  return allot::Status::Ok();
}

allot::Status Registry::Merge(const Registry& other) {
  for (const auto& [name, factory] : other.factories_) {
    ALLOT_RETURN_IF_ERROR(Register(name, factory));
  }
  return allot::Status::Ok();
}

const PluginFactory* Registry::Find(std::string_view name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, f] : factories_) out.push_back(name);
  return out;
}

}  // namespace allot::scheduler
