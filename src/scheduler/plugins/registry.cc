#include "scheduler/plugins/registry.h"

#include "scheduler/plugins/defaultbinder/default_binder.h"
#include "scheduler/plugins/defaultpreemption/default_preemption.h"
#include "scheduler/plugins/dynamicresources/dynamic_resources.h"
#include "scheduler/plugins/nodeaffinity/node_affinity.h"
#include "scheduler/plugins/nodename/node_name.h"
#include "scheduler/plugins/nodeports/node_ports.h"
#include "scheduler/plugins/noderesources/node_resources.h"
#include "scheduler/plugins/nodeunschedulable/node_unschedulable.h"
#include "scheduler/plugins/prioritysort/priority_sort.h"
#include "scheduler/plugins/reservation/reservation.h"
#include "scheduler/plugins/schedulinggates/scheduling_gates.h"
#include "scheduler/plugins/tainttoleration/taint_toleration.h"

namespace allot::scheduler {

namespace {

// A factory for a plugin that takes no arguments.
template <class P>
PluginFactory NoArgs() {
  return [](std::string_view, Handle&) -> Result<std::unique_ptr<Plugin>> {
    return std::unique_ptr<Plugin>(std::make_unique<P>());
  };
}

void MustRegister(Registry& r, std::string_view name, PluginFactory f) {
  allot::Status st = r.Register(std::string(name), std::move(f));
  (void)st;  // names below are distinct
}

}  // namespace

Registry InTreeRegistry(const dra::Features& features) {
  Registry r;
  MustRegister(r, names::kPrioritySort, NoArgs<PrioritySort>());
  MustRegister(r, names::kSchedulingGates, NoArgs<SchedulingGates>());
  MustRegister(r, names::kNodeUnschedulable, NoArgs<NodeUnschedulable>());
  MustRegister(r, names::kNodeName, NoArgs<NodeName>());
  MustRegister(r, names::kTaintToleration, NoArgs<TaintToleration>());
  MustRegister(r, names::kNodeAffinity, NoArgs<NodeAffinity>());
  MustRegister(r, names::kNodePorts, NoArgs<NodePorts>());
  MustRegister(r, names::kNodeResourcesFit,
               [](std::string_view args, Handle&) -> Result<std::unique_ptr<Plugin>> {
                 ALLOT_ASSIGN_OR_RETURN(NodeResourcesFitArgs a, ParseNodeResourcesFitArgs(args));
                 return std::unique_ptr<Plugin>(std::make_unique<NodeResourcesFit>(std::move(a)));
               });
  MustRegister(
      r, names::kNodeResourcesBalancedAllocation,
      [](std::string_view args, Handle&) -> Result<std::unique_ptr<Plugin>> {
        ALLOT_ASSIGN_OR_RETURN(auto res, ParseBalancedAllocationArgs(args));
        return std::unique_ptr<Plugin>(std::make_unique<BalancedAllocation>(std::move(res)));
      });
  MustRegister(r, names::kDefaultBinder,
               [](std::string_view, Handle& h) -> Result<std::unique_ptr<Plugin>> {
                 return std::unique_ptr<Plugin>(std::make_unique<DefaultBinder>(h));
               });
  MustRegister(r, names::kDynamicResources,
               [features](std::string_view args, Handle& h) -> Result<std::unique_ptr<Plugin>> {
                 ALLOT_ASSIGN_OR_RETURN(DynamicResourcesArgs a, ParseDynamicResourcesArgs(args));
                 return std::unique_ptr<Plugin>(std::make_unique<DynamicResources>(h, features, a));
               });
  MustRegister(r, names::kReservation,
               [](std::string_view, Handle& h) -> Result<std::unique_ptr<Plugin>> {
                 return std::unique_ptr<Plugin>(std::make_unique<Reservation>(h));
               });
  MustRegister(r, names::kDefaultPreemption,
               [](std::string_view args, Handle& h) -> Result<std::unique_ptr<Plugin>> {
                 ALLOT_ASSIGN_OR_RETURN(DefaultPreemptionArgs a, ParseDefaultPreemptionArgs(args));
                 return std::unique_ptr<Plugin>(std::make_unique<DefaultPreemption>(h, a));
               });
  return r;
}

}  // namespace allot::scheduler
