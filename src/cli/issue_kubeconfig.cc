#include "cli/issue_kubeconfig.h"

#include <filesystem>

#include "client/kubeconfig.h"
#include "common/files.h"
#include "pki/serving_files.h"

namespace allot::cli {

Result<std::string> IssueKubeconfig(const std::string& data_dir, const std::string& server,
                                    const std::string& user, const std::vector<std::string>& groups,
                                    std::chrono::hours validity) {
  const std::string pki_dir = (std::filesystem::path(data_dir) / "pki").string();
  ALLOT_ASSIGN_OR_RETURN(pki::KeyPair cert,
                         pki::IssueClientCertificate(pki_dir, user, groups, validity));
  ALLOT_ASSIGN_OR_RETURN(std::string ca, ReadFile(pki_dir + "/ca.crt"));
  return client::KubeconfigYaml("allot", server, ca, user, cert.cert_pem, cert.key_pem);
}

}  // namespace allot::cli
