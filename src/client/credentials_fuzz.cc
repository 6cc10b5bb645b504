// libFuzzer target for every parser of credentials Allot reads from outside: kubeconfigs
// (YAML, base64 *-data), kube-apiserver token files (CSV), PEM certificates and keys
// (inspection, verification against a fixed CA, key matching, client TLS contexts).
//
// Built and run by scripts/test.sh with the other fuzzers (see decode_fuzz.cc for the flags):
//   build-fuzz/src/credentials_fuzz -max_total_time=60 /tmp/corpus tests/fuzz/corpus/credentials
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

#include "apiserver/authn/authenticator.h"
#include "client/http_transport.h"
#include "client/kubeconfig.h"
#include "pki/pki.h"

namespace {

const allot::pki::KeyPair& Ca() {
  static const allot::pki::KeyPair kCa =
      allot::pki::NewCA("fuzz-ca", std::chrono::hours(24)).value();
  return kCa;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  // Kubeconfig: no file it names exists, so references fail cleanly.
  (void)allot::client::ParseKubeconfig(in, "/nonexistent/kubeconfig", "");
  // Token files.
  std::vector<std::string> warnings;
  (void)allot::apiserver::authn::ParseTokenFile(in, "fuzz.csv", &warnings);
  // PEM: the input as a certificate, a key, a CA bundle.
  (void)allot::pki::Inspect(in);
  (void)allot::pki::Verify(in, Ca().cert_pem, static_cast<int64_t>(std::time(nullptr)));
  (void)allot::pki::MatchesKey(in, in);
  (void)allot::pki::MatchesKey(Ca().cert_pem, in);
  if (!in.empty()) (void)allot::client::MakeClientTlsContext(in, "", "", false);
  (void)allot::client::MakeClientTlsContext("", in, in, /*insecure=*/true);  // no CA loading
  return 0;
}
