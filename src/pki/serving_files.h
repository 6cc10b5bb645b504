// The certificates `allot serve` keeps in its data directory (<dir> is <data-dir>/pki):
//
//   ca.crt, ca.key              the cluster's CA (10 years), created on first start
//   apiserver.crt, .key         the serving certificate (1 year), signed by the CA, for
//                               localhost, 127.0.0.1, ::1, the host name and the extra names;
//                               issued again when missing, not signed by the CA, expiring within
//                               30 days, or not covering a name asked for
//   admin.crt, admin.key        a client certificate of user "allot-admin" in group
//                               system:masters (cluster-admin), for the admin kubeconfig
//
// Private keys are written 0600, atomically. What exists and is still good is kept, so a
// restart serves the same CA and every kubeconfig issued from it keeps working.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "pki/pki.h"

namespace allot::pki {

inline constexpr char kAdminUser[] = "allot-admin";
inline constexpr char kMastersGroup[] = "system:masters";

struct ServingFiles {
  KeyPair ca;
  KeyPair serving;
  KeyPair admin;
  std::string ca_cert_path;  // <dir>/ca.crt
};

// Loads or creates the files above in `dir` (created 0700 when missing). `extra_names` are
// --tls-san values: IP addresses or DNS names. `now_unix` decides what counts as expiring.
// Errors: a directory or file that cannot be written, a CA whose key does not match (500/400).
Result<ServingFiles> EnsureServingFiles(const std::string& dir,
                                        const std::vector<std::string>& extra_names,
                                        int64_t now_unix);

// A client certificate for `user` in `groups` from the CA in `dir` (`allot kubeconfig`).
Result<KeyPair> IssueClientCertificate(const std::string& dir, const std::string& user,
                                       const std::vector<std::string>& groups,
                                       std::chrono::hours validity);

}  // namespace allot::pki
