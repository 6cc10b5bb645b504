#include "cli/serving_security.h"

#include <ctime>
#include <filesystem>

#include "client/kubeconfig.h"
#include "common/files.h"
#include "common/log.h"
#include "pki/serving_files.h"

namespace allot::cli {

namespace {

namespace fs = std::filesystem;

bool IsLoopback(const std::string& listen) {
  std::string host = listen.substr(0, listen.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace

void ServingSecurityFlags::Register(Flags& flags) {
  flags.String("tls-cert-file", &tls_cert_file,
               "serving certificate (PEM, then intermediates); default: one issued by the "
               "cluster CA in <data-dir>/pki");
  flags.String("tls-private-key-file", &tls_private_key_file,
               "the serving certificate's private key (PEM)");
  flags.String("client-ca-file", &client_ca_file,
               "CA bundle for client certificates (CN = user, O = groups); default: the cluster "
               "CA in <data-dir>/pki");
  flags.String("tls-san", &tls_sans,
               "extra names (DNS names or IP addresses, comma-separated) for the generated "
               "serving certificate");
  flags.String("token-auth-file", &token_auth_file,
               "static bearer tokens, kube-apiserver's CSV: token,user,uid[,\"group1,group2\"]");
  flags.Bool("anonymous-auth", &anonymous_auth,
             "serve requests without credentials as system:anonymous (default: 401)");
  flags.Bool("insecure-plain-http", &insecure_plain_http,
             "plain HTTP without TLS or authentication, for local experiments and tests; only "
             "on a loopback address");
  flags.String("authorization-mode", &authorization_mode,
               "RBAC (roles and bindings decide; system:masters may do anything) or AlwaysAllow");
  flags.String("audit-log-path", &audit_log_path,
               "log every request (user, verb, resource, name, code) as audit.k8s.io/v1 JSON "
               "lines to this file; \"-\": standard output");
}

Result<ServingSecurity> ServingSecurityFlags::Prepare(const std::string& listen,
                                                      const std::string& data_dir) const {
  ServingSecurity out;
  out.data_dir = data_dir;
  if (authorization_mode == "RBAC") {
    out.authorization = apiserver::Authorization::kRbac;
  } else if (authorization_mode != "AlwaysAllow") {
    return BadRequestError("--authorization-mode: unknown mode \"" + authorization_mode +
                           "\" (RBAC or AlwaysAllow)");
  }
  if (!audit_log_path.empty()) {
    ALLOT_ASSIGN_OR_RETURN(out.audit_log,
                           apiserver::audit::AuditLog::Open(audit_log_path, RealClock::Instance()));
  }
  apiserver::authn::AuthenticatorOptions authn;
  authn.anonymous = anonymous_auth;
  if (!token_auth_file.empty()) {
    ALLOT_ASSIGN_OR_RETURN(authn.token_file_csv, ReadFile(token_auth_file));
    authn.token_file_name = token_auth_file;
  }
  if (insecure_plain_http) {
    if (!IsLoopback(listen)) {
      return BadRequestError(
          "--insecure-plain-http: plain HTTP is only allowed on a loopback "
          "address (127.0.0.1, ::1, localhost), not \"" +
          listen + "\"");
    }
    if (!tls_cert_file.empty() || !client_ca_file.empty()) {
      return BadRequestError("--insecure-plain-http cannot be combined with TLS flags");
    }
    if (!token_auth_file.empty()) {
      authn.client_certificates = false;
      ALLOT_ASSIGN_OR_RETURN(out.authenticator, apiserver::authn::Authenticator::Create(authn));
    } else {
      out.authorization = apiserver::Authorization::kAlwaysAllow;  // everyone is anonymous
    }
    return out;
  }
  if (tls_cert_file.empty() != tls_private_key_file.empty()) {
    return BadRequestError("--tls-cert-file and --tls-private-key-file go together");
  }
  ALLOT_ASSIGN_OR_RETURN(
      pki::ServingFiles files,
      pki::EnsureServingFiles((fs::path(data_dir) / "pki").string(), SplitCommaList(tls_sans),
                              static_cast<int64_t>(std::time(nullptr))));
  apiserver::ApiServerTls tls;
  if (tls_cert_file.empty()) {
    tls.cert_pem = files.serving.cert_pem;
    tls.key_pem = files.serving.key_pem;
    out.kubeconfig_ca_pem = files.ca.cert_pem;
  } else {
    ALLOT_ASSIGN_OR_RETURN(tls.cert_pem, ReadFile(tls_cert_file));
    ALLOT_ASSIGN_OR_RETURN(tls.key_pem, ReadFile(tls_private_key_file));
    if (Status st = pki::MatchesKey(tls.cert_pem, tls.key_pem); !st.ok()) {
      return BadRequestError("--tls-private-key-file: " + st.message());
    }
    // Clients verify the given certificate against the system's CAs.
  }
  if (client_ca_file.empty()) {
    tls.client_ca_pem = files.ca.cert_pem;
  } else {
    ALLOT_ASSIGN_OR_RETURN(tls.client_ca_pem, ReadFile(client_ca_file));
    if (!pki::Inspect(tls.client_ca_pem).ok()) {
      return BadRequestError("--client-ca-file: no PEM certificate in " + client_ca_file);
    }
  }
  out.tls = std::move(tls);
  ALLOT_ASSIGN_OR_RETURN(out.authenticator, apiserver::authn::Authenticator::Create(authn));
  for (const std::string& w : out.authenticator->warnings()) log::Warning("serve", w);
  // The admin's certificate is from the cluster CA: usable only when that CA is the client CA.
  if (client_ca_file.empty()) {
    out.admin = files.admin;
    out.admin_user = pki::kAdminUser;
  }
  return out;
}

Result<std::string> ServingSecurity::WriteAdminKubeconfig(const std::string& url) const {
  if (!tls || !admin) return std::string();
  const std::string path =
      fs::absolute(fs::path(data_dir) / "admin.kubeconfig").lexically_normal().string();
  ALLOT_RETURN_IF_ERROR(
      WriteFileAtomically(path,
                          client::KubeconfigYaml("allot", url, kubeconfig_ca_pem, admin_user,
                                                 admin->cert_pem, admin->key_pem),
                          0600));
  return path;
}

}  // namespace allot::cli
