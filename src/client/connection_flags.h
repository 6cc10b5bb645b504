// The flags every command that talks to an API server takes, with kubectl's names:
//   --kubeconfig FILE, --context NAME, --server URL, --token TOKEN
// resolved as client/kubeconfig.h describes (the flag, $KUBECONFIG, in-cluster, --server);
// --server and --token override what the kubeconfig says. And kube-scheduler's
//   --kube-api-content-type application/vnd.kubernetes.protobuf (default) | application/json.
#pragma once

#include <memory>
#include <string>

#include "client/http_client.h"
#include "client/kubeconfig.h"
#include "common/flags.h"

namespace allot::client {

struct ConnectionFlags {
  std::string kubeconfig;
  std::string context;
  std::string server;
  std::string token;
  std::string content_type = "application/vnd.kubernetes.protobuf";

  void Register(Flags& flags);
  Result<RestConfig> Resolve() const;
  // A client for the resolved configuration, speaking --kube-api-content-type; `out`
  // (optional) receives the configuration. 400 for a content type other than the two.
  Result<std::unique_ptr<HttpClient>> Connect(HttpClientOptions options = {},
                                              RestConfig* out = nullptr) const;
};

}  // namespace allot::client
