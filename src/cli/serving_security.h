// `allot serve`'s TLS and authentication: its flags and what they make (docs/security.md).
//
// By default the server speaks TLS with a certificate from its own CA, kept in
// <data-dir>/pki (pki/serving_files.h); client certificates from that CA (or --client-ca-file)
// and the tokens of --token-auth-file authenticate; anonymous requests get 401 unless
// --anonymous-auth. An admin kubeconfig (user allot-admin, group system:masters) is written to
// <data-dir>/admin.kubeconfig. Requests are authorized with RBAC (--authorization-mode) unless
// nobody is authenticated. Plain HTTP only with --insecure-plain-http, and only on a
// loopback address.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "apiserver/server.h"
#include "common/flags.h"
#include "common/status.h"
#include "pki/pki.h"

namespace allot::cli {

struct ServingSecurity {
  std::optional<apiserver::ApiServerTls> tls;                            // nullopt: plain HTTP
  std::shared_ptr<const apiserver::authn::Authenticator> authenticator;  // null: nobody asked
  apiserver::Authorization authorization = apiserver::Authorization::kAlwaysAllow;
  std::shared_ptr<apiserver::audit::AuditLog> audit_log;  // null: no audit log
  std::string admin_user;

  // Writes <data-dir>/admin.kubeconfig for the server at `url`; its path, or "" when there is
  // no admin credential to write (plain HTTP).
  Result<std::string> WriteAdminKubeconfig(const std::string& url) const;

  std::string data_dir;
  std::string kubeconfig_ca_pem;  // the CA clients trust for the serving certificate
  std::optional<pki::KeyPair> admin;
};

struct ServingSecurityFlags {
  std::string tls_cert_file;
  std::string tls_private_key_file;
  std::string client_ca_file;
  std::string tls_sans;  // comma-separated
  std::string token_auth_file;
  bool anonymous_auth = false;
  bool insecure_plain_http = false;
  std::string authorization_mode = "RBAC";
  std::string audit_log_path;

  void Register(Flags& flags);
  // Errors (400): an unknown --authorization-mode, an audit log that cannot be opened, plain
  // HTTP on a non-loopback address, a certificate without its key, files
  // that do not load, a token file that does not parse.
  Result<ServingSecurity> Prepare(const std::string& listen, const std::string& data_dir) const;
};

}  // namespace allot::cli
