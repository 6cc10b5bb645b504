// DefaultBinder: Bind: POST pods/<name>/binding through the API client.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/plugins/names.h"

namespace allot::scheduler {

class DefaultBinder final : public BindPlugin {
 public:
  explicit DefaultBinder(Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return names::kDefaultBinder; }
  // POST pods/<name>/binding via Client::BindAsync (the pod's uid as precondition).
  void Bind(CycleState& state, const PodInfo& pod, const std::string& node,
            BindCallback done) override;

 private:
  Handle& handle_;
};

}  // namespace allot::scheduler
