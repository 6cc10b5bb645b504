// Where a component finds its API server and credentials, as client-go's clientcmd does:
//
//   --kubeconfig FILE, else $KUBECONFIG (files separated by ':', merged: the first file to name
//   a cluster, user or context wins, as does the first current-context), else the in-cluster
//   configuration (a pod's service account: $KUBERNETES_SERVICE_HOST/PORT, the token and CA
//   under /var/run/secrets/kubernetes.io/serviceaccount), else --server with no credentials.
//
// From a kubeconfig: the context (--context, else current-context), its cluster (server,
// certificate-authority[-data], insecure-skip-tls-verify, tls-server-name) and its user
// (client-certificate[-data], client-key[-data], token, tokenFile). Relative file names are
// relative to the kubeconfig's own directory.
//
//   ALLOT_ASSIGN_OR_RETURN(client::RestConfig cfg,
//                          client::ResolveRestConfig(kubeconfig, context, server));
//   ALLOT_ASSIGN_OR_RETURN(auto c, client::NewHttpClient(cfg));
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/http_client.h"
#include "common/status.h"

namespace allot::client {

struct RestConfig {
  std::string server;  // "https://host:port"
  std::string ca_pem;
  std::string cert_pem;
  std::string key_pem;
  std::string token;
  bool insecure_skip_verify = false;
  std::string tls_server_name;
  std::string namespace_;  // the context's namespace ("" : none)
  std::string source;      // where it came from, for messages ("kubeconfig /x", "in-cluster")
};

// The configuration from these kubeconfig files (merged), for `context` ("" : current-context).
// Errors (400, naming the file): missing files (when none exists), YAML that does not parse, a
// context, cluster or user that is not there, unreadable referenced files, bad base64.
Result<RestConfig> LoadKubeconfig(const std::vector<std::string>& files, std::string_view context);

// One kubeconfig's text, as if read from `path` (relative file references resolve against its
// directory). Errors as LoadKubeconfig's.
Result<RestConfig> ParseKubeconfig(std::string_view yaml, const std::string& path,
                                   std::string_view context);

// A pod's configuration; `root` holds "token" and "ca.crt". Errors: not in a cluster (400).
Result<RestConfig> InClusterConfig(
    const std::string& root = "/var/run/secrets/kubernetes.io/serviceaccount");

// The precedence above. `kubeconfig`, `context` and `server` are the flags ("" : not given);
// an explicit `server` overrides the kubeconfig's (keeping its credentials).
Result<RestConfig> ResolveRestConfig(const std::string& kubeconfig, const std::string& context,
                                     const std::string& server);

// A client for `config` (options supply workers, timeouts, user agent).
Result<std::unique_ptr<HttpClient>> NewHttpClient(const RestConfig& config,
                                                  HttpClientOptions options = {});

// A kubeconfig with one cluster, user and context (all named `name`), the CA and the client
// certificate embedded (*-data), as `allot serve` and `allot kubeconfig` write it.
std::string KubeconfigYaml(const std::string& name, const std::string& server,
                           const std::string& ca_pem, const std::string& user,
                           const std::string& cert_pem, const std::string& key_pem);

}  // namespace allot::client
