// `allot serve`'s flags, kept as Kubernetes components keep theirs (kube-scheduler's
// options.Options): one struct holds every flag's value with its default, AddFlags registers
// them, Validate checks what needs no file or network, and Complete turns them into what the
// cluster runs with (cluster::ClusterOptions), reading the files they name.
//
//   ServeOptions o;
//   Flags flags("allot serve", "...");
//   o.AddFlags(flags);
//   if (auto code = flags.ParseOrExit(argc, argv)) return *code;
//   ALLOT_RETURN_IF_ERROR(o.Validate());
//   ALLOT_ASSIGN_OR_RETURN(ServeOptions::Completed c, o.Complete());
//
// Errors are 400s whose message names the flag ("--event-ttl: must not be negative").
#pragma once

#include <cstdint>
#include <string>

#include "cli/roles.h"
#include "cli/serving_security.h"
#include "cluster/cluster.h"
#include "common/flags.h"
#include "common/status.h"

namespace allot::cli {

struct ServeOptions {
  std::string listen = "127.0.0.1:6443";
  std::string data_dir = "./data";
  std::string store = "sqlite";
  std::string etcd_servers;  // comma-separated
  std::string etcd_cafile, etcd_certfile, etcd_keyfile;
  std::string etcd_compaction_interval = "5m";
  std::string event_ttl = "1h0m0s";
  int64_t watch_history = 100000;
  int64_t threads = 2;
  int64_t sim_nodes = 0;
  std::string sim_node_template;
  SimDeviceFlags sim_devices;
  bool no_scheduler = false;
  std::string scheduler_config;
  bool no_controllers = false;
  std::string feature_gates;
  bool demo = false;
  std::string fabric_config;
  std::string controller_config;
  ServingSecurityFlags security;
  int64_t max_requests_inflight = 400;
  int64_t max_mutating_requests_inflight = 200;

  void AddFlags(Flags& flags);
  // The checks that read nothing: paired flags, signs and ranges, durations, feature gates.
  Status Validate() const;

  struct Completed {
    cluster::ClusterOptions cluster;
    ServingSecurity security;  // what the admin kubeconfig is written from
  };
  // The cluster's options: --demo's defaults applied, the driver configurations, device
  // profile and etcd credentials read, TLS and authentication prepared. Call after Validate.
  Result<Completed> Complete() const;
};

}  // namespace allot::cli
