// The plugin registry: plugin factories by name. A profile names the plugins it enables; the
// framework asks the registry to build each one once, with the plugin's arguments (the JSON of
// its pluginConfig entry, "" when none) and the framework's Handle.
//
// Out-of-tree plugins (DRA, reservations, tests) are added by merging registries.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "scheduler/framework/interface.h"

namespace allot::scheduler {

using PluginFactory =
    std::function<Result<std::unique_ptr<Plugin>>(std::string_view args_json, Handle& handle)>;

class Registry {
 public:
  // AlreadyExists if the name is taken.
  allot::Status Register(std::string name, PluginFactory factory);
  // Adds every factory of `other`; AlreadyExists on the first duplicate name.
  allot::Status Merge(const Registry& other);
  const PluginFactory* Find(std::string_view name) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, PluginFactory, std::less<>> factories_;
};

}  // namespace allot::scheduler
