// The objects a cluster is populated with for benchmarks, integration tests and simulations:
// nodes with capacity, node-local ResourceSlices, DeviceClasses, claim specs and templates, pods
// with claims. One set of builders, so `allot bench` and the integration tests create the same
// shapes (scheduler_perf's node and pod templates, dra-example-driver's devices).
//
//   auto node = workloads::MakeNode("node-0", {.cpu = "64", .memory = "256Gi"});
//   auto slice = workloads::MakeNodeLocalSlice("node-0-gpu", "gpu.example.com", "node-0", 8);
//   auto pod = workloads::MakePod("default", "p");
//   workloads::AddTemplateClaim(*pod, "gpu", "one-gpu");
//
// Every maker of a namespaced object takes the namespace first, then the name, as the store and
// the clients do. Pure functions; depends on api/ only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/core/types.h"
#include "api/resource/types.h"

namespace allot::workloads {

struct NodeShape {
  std::string cpu = "4";
  std::string memory = "32Gi";
  std::string pods = "110";
  bool ready_condition = true;  // status.conditions has Ready=True
};
// A node with the kubernetes.io/hostname label and capacity = allocatable = `shape`.
std::unique_ptr<api::Node> MakeNode(const std::string& name, const NodeShape& shape = {});

struct DeviceShape {
  std::string prefix = "gpu-";             // devices <prefix>0 .. <prefix>N-1
  std::string model = "LATEST-GPU-MODEL";  // attribute "model"
  std::string memory = "80Gi";             // capacity "memory"
  bool index_attribute = true;             // attribute "index" = i
  // KEP-5007: devices that must be made ready (attached) before a pod may use them.
  bool binds_to_node = false;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
};
// The slice a node-local driver publishes: pool = the node, one slice in the pool.
std::unique_ptr<api::ResourceSlice> MakeNodeLocalSlice(const std::string& name,
                                                       const std::string& driver,
                                                       const std::string& node, int64_t devices,
                                                       const DeviceShape& shape = {});

// A DeviceClass named `name` selecting every device of `driver`.
std::unique_ptr<api::DeviceClass> MakeDriverClass(const std::string& name,
                                                  const std::string& driver);

// One request "gpu" for `count` devices of `device_class`, each matching `selector` (a CEL
// expression; empty for none); with `match_attribute` (when count > 1) all on one value of it.
api::ResourceClaimSpec ClaimSpec(const std::string& device_class, int64_t count,
                                 const std::string& selector = "",
                                 const std::string& match_attribute = "");
std::unique_ptr<api::ResourceClaimTemplate> MakeClaimTemplate(const std::string& ns,
                                                              const std::string& name,
                                                              api::ResourceClaimSpec spec);
std::unique_ptr<api::ResourceClaim> MakeClaim(const std::string& ns, const std::string& name,
                                              api::ResourceClaimSpec spec);

// A pod with one pause container requesting `cpu` and `memory` (scheduler_perf's pod template).
std::unique_ptr<api::Pod> MakePod(const std::string& ns, const std::string& name,
                                  const std::string& cpu = "100m",
                                  const std::string& memory = "500Mi");
// Adds spec.resourceClaims[] entry `claim` from the template `tmpl`, used by every container.
void AddTemplateClaim(api::Pod& pod, const std::string& claim, const std::string& tmpl);
// Adds spec.resourceClaims[] entry `claim` naming the existing ResourceClaim `claim_name`.
void AddExistingClaim(api::Pod& pod, const std::string& claim, const std::string& claim_name);

}  // namespace allot::workloads
