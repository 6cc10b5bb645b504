// NodePorts plugin tests.
#include "scheduler/plugins/nodeports/node_ports.h"

#include <gtest/gtest.h>

#include "scheduler/testing/builders.h"
#include "scheduler/testing/filter_cases.h"

namespace allot::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;
using testing::RunFilterCases;

TEST(NodePorts, Filter) {
  NodePorts plugin;
  auto user = [](int32_t port, std::string proto = "", std::string ip = "") {
    return PodBuilder("u").HostPort(port, proto, ip).Build();
  };
  const std::string reason = "node(s) didn't have free ports for the requested pod ports";
  RunFilterCases(plugin, {
                             {"no host ports: skipped",
                              PodBuilder("p").Req("1"),
                              NodeBuilder("n"),
                              Code::kSuccess,
                              "",
                              {user(80)}},
                             {"free",
                              PodBuilder("p").HostPort(8080),
                              NodeBuilder("n"),
                              Code::kSuccess,
                              "",
                              {user(80)}},
                             {"taken",
                              PodBuilder("p").HostPort(80),
                              NodeBuilder("n"),
                              Code::kUnschedulable,
                              reason,
                              {user(80)}},
                             {"other protocol",
                              PodBuilder("p").HostPort(53, "UDP"),
                              NodeBuilder("n"),
                              Code::kSuccess,
                              "",
                              {user(53, "TCP")}},
                             {"specific IPs differ",
                              PodBuilder("p").HostPort(80, "TCP", "10.0.0.2"),
                              NodeBuilder("n"),
                              Code::kSuccess,
                              "",
                              {user(80, "TCP", "10.0.0.1")}},
                             {"wildcard vs specific",
                              PodBuilder("p").HostPort(80, "TCP", "10.0.0.2"),
                              NodeBuilder("n"),
                              Code::kUnschedulable,
                              reason,
                              {user(80)}},
                         });
}

}  // namespace
}  // namespace allot::scheduler
