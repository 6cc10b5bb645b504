// Authentication: who a request comes from, decided as kube-apiserver decides it.
//
//   x509 client certificates — the TLS handshake verified the certificate against the client CA
//     (apiserver/server.h); its subject's common name is the user, its organizations the groups;
//   static bearer tokens — "Authorization: Bearer <token>" looked up in kube-apiserver's
//     --token-auth-file CSV: token,user,uid[,"group1,group2"];
//   anonymous — when allowed, a request that presents neither is system:anonymous in group
//     system:unauthenticated. A token that is presented but unknown is never anonymous: 401.
// Every authenticated user also gets the group system:authenticated.
//
// Health probes (/healthz, /livez, /readyz and their sub-paths) are answered for anyone, as
// kube-apiserver's anonymous-endpoint conditions allow for load balancers.
//
// Thread safety: an Authenticator is immutable after Create(); Authenticate is thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "apiserver/transport/http_types.h"
#include "common/status.h"

namespace allot::apiserver::authn {

inline constexpr std::string_view kAnonymousUser = "system:anonymous";
inline constexpr std::string_view kUnauthenticatedGroup = "system:unauthenticated";
inline constexpr std::string_view kAuthenticatedGroup = "system:authenticated";

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  // Further attributes by key (only impersonation sets them: Impersonate-Extra-<key>).
  std::map<std::string, std::vector<std::string>> extra;
  bool operator==(const UserInfo&) const = default;
};

struct AuthenticatorOptions {
  bool client_certificates = true;  // trust a verified TLS client certificate
  std::string token_file_csv;       // the contents of a --token-auth-file ("" : none)
  std::string token_file_name;      // for messages
  bool anonymous = false;
};

class Authenticator {
 public:
  // Errors: a token file that does not parse (400, naming the file and record).
  static Result<std::shared_ptr<const Authenticator>> Create(const AuthenticatorOptions& options);

  // The request's user; 401 "Unauthorized" when it presents no identity (and anonymous is off)
  // or one that does not check out.
  Result<UserInfo> Authenticate(const Request& req) const;

  // Whether `path` is a health probe answered without authentication.
  static bool IsHealthProbe(std::string_view path);

  // Warnings from the token file (duplicate or empty tokens), for the log.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  AuthenticatorOptions options_;
  std::unordered_map<std::string, UserInfo> tokens_;
  std::vector<std::string> warnings_;
};

// Parses kube-apiserver's token file: CSV records of at least 3 fields (token, user name, uid)
// and optionally a 4th with comma-separated groups; blank lines are skipped. Errors: 400 with
// the record number.
Result<std::unordered_map<std::string, UserInfo>> ParseTokenFile(
    std::string_view csv, std::string_view file_name, std::vector<std::string>* warnings);

}  // namespace allot::apiserver::authn
