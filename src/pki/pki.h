// Certificates for TLS between Allot's components and its clients: a certificate authority of
// its own, serving certificates for the API server, and client certificates whose subject says
// who the client is (CN = user name, O = groups, as kube-apiserver reads them).
//
//   ALLOT_ASSIGN_OR_RETURN(pki::KeyPair ca, pki::NewCA("allot-ca", std::chrono::hours(24 * 3650)));
//   ALLOT_ASSIGN_OR_RETURN(pki::KeyPair admin,
//                          pki::Issue(ca, {.common_name = "admin",
//                                          .organizations = {"system:masters"},
//                                          .client = true}));
//
// Keys are ECDSA P-256, signatures SHA-256, everything PEM. Built on OpenSSL's libcrypto; no
// OpenSSL type appears in this header.
//
// Thread safety: every function is safe to call from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace allot::pki {

// A certificate and its private key, both PEM.
struct KeyPair {
  std::string cert_pem;
  std::string key_pem;
};

struct CertSpec {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> dns_names;     // subjectAltName DNS entries
  std::vector<std::string> ip_addresses;  // subjectAltName IP entries ("127.0.0.1", "::1")
  bool server = false;                    // extendedKeyUsage serverAuth
  bool client = false;                    // extendedKeyUsage clientAuth
  std::chrono::hours validity{24 * 365};
};

// A new self-signed certificate authority. Errors: an empty name, OpenSSL failures (500).
Result<KeyPair> NewCA(std::string_view common_name, std::chrono::hours validity);

// A certificate for `spec`, signed by `ca`. Errors: a CA that does not parse or whose key does
// not match, an IP address that does not parse, an empty common name (400).
Result<KeyPair> Issue(const KeyPair& ca, const CertSpec& spec);

// What a certificate says.
struct CertInfo {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;
  int64_t not_before = 0;  // unix seconds
  int64_t not_after = 0;
  bool is_ca = false;
};

// Errors: no PEM certificate in `cert_pem` (400).
Result<CertInfo> Inspect(std::string_view cert_pem);

// Ok when `cert_pem` was signed by the CA in `ca_pem` and is valid at `now_unix`; otherwise
// why not (401-style reasons: "certificate has expired", "unable to get local issuer
// certificate", ...; 400 when either does not parse).
Status Verify(std::string_view cert_pem, std::string_view ca_pem, int64_t now_unix);

// Ok when `key_pem` is the private key of `cert_pem`.
Status MatchesKey(std::string_view cert_pem, std::string_view key_pem);

}  // namespace allot::pki
