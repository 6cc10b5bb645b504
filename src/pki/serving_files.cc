#include "pki/serving_files.h"

#include <arpa/inet.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <filesystem>

#include "common/files.h"

namespace allot::pki {

namespace {

namespace fs = std::filesystem;

constexpr std::chrono::hours kCaValidity{24 * 365 * 10};
constexpr std::chrono::hours kLeafValidity{24 * 365};
constexpr int64_t kRenewBefore = 30LL * 24 * 3600;

bool IsIp(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

// The pair in dir/<name>.crt and .key, or nullopt when either is missing.
Result<std::optional<KeyPair>> Load(const std::string& dir, const std::string& name) {
  const std::string crt = dir + "/" + name + ".crt", key = dir + "/" + name + ".key";
  if (!fs::exists(crt) || !fs::exists(key)) return std::optional<KeyPair>();
  ALLOT_ASSIGN_OR_RETURN(std::string cert_pem, ReadFile(crt));
  ALLOT_ASSIGN_OR_RETURN(std::string key_pem, ReadFile(key));
  return std::optional<KeyPair>(KeyPair{std::move(cert_pem), std::move(key_pem)});
}

Status Save(const std::string& dir, const std::string& name, const KeyPair& pair) {
  ALLOT_RETURN_IF_ERROR(WriteFileAtomically(dir + "/" + name + ".key", pair.key_pem, 0600));
  return WriteFileAtomically(dir + "/" + name + ".crt", pair.cert_pem, 0644);
}

// Whether `pair` is a good leaf of `ca` at `now`: signed by it, its key, not expiring soon.
bool Good(const KeyPair& pair, const KeyPair& ca, int64_t now) {
  return MatchesKey(pair.cert_pem, pair.key_pem).ok() &&
         Verify(pair.cert_pem, ca.cert_pem, now + kRenewBefore).ok();
}

Result<KeyPair> LoadOrCreateCA(const std::string& dir, int64_t now) {
  ALLOT_ASSIGN_OR_RETURN(std::optional<KeyPair> ca, Load(dir, "ca"));
  if (ca) {
    auto key = MatchesKey(ca->cert_pem, ca->key_pem);
    if (!key.ok()) return BadRequestError(dir + "/ca.key: " + key.message());
    auto info = Inspect(ca->cert_pem);
    if (!info.ok() || !info->is_ca) return BadRequestError(dir + "/ca.crt is not a CA certificate");
    if (info->not_after < now) {
      return BadRequestError(dir + "/ca.crt has expired: remove the pki directory to start over");
    }
    return *ca;
  }
  ALLOT_ASSIGN_OR_RETURN(KeyPair created, NewCA("allot-ca@" + std::to_string(now), kCaValidity));
  ALLOT_RETURN_IF_ERROR(Save(dir, "ca", created));
  return created;
}

}  // namespace

Result<ServingFiles> EnsureServingFiles(const std::string& dir,
                                        const std::vector<std::string>& extra_names,
                                        int64_t now_unix) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return InternalError("cannot create " + dir + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);
  ServingFiles out;
  out.ca_cert_path = dir + "/ca.crt";
  ALLOT_ASSIGN_OR_RETURN(out.ca, LoadOrCreateCA(dir, now_unix));

  CertSpec serving{.common_name = "allot-apiserver",
                   .dns_names = {"localhost"},
                   .ip_addresses = {"127.0.0.1", "::1"},
                   .server = true,
                   .validity = kLeafValidity};
  char host[HOST_NAME_MAX + 1] = {};
  if (::gethostname(host, sizeof(host) - 1) == 0 && host[0] && std::string(host) != "localhost") {
    serving.dns_names.emplace_back(host);
  }
  for (const std::string& name : extra_names) {
    if (name.empty()) continue;
    auto& list = IsIp(name) ? serving.ip_addresses : serving.dns_names;
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  }
  ALLOT_ASSIGN_OR_RETURN(std::optional<KeyPair> current, Load(dir, "apiserver"));
  bool reuse = current && Good(*current, out.ca, now_unix);
  if (reuse) {
    auto info = Inspect(current->cert_pem);
    auto covers = [](const std::vector<std::string>& have, const std::vector<std::string>& want) {
      return std::all_of(want.begin(), want.end(), [&](const std::string& w) {
        return std::find(have.begin(), have.end(), w) != have.end();
      });
    };
    reuse = info.ok() && covers(info->dns_names, serving.dns_names) &&
            covers(info->ip_addresses, serving.ip_addresses);
  }
  if (reuse) {
    out.serving = *current;
  } else {
    ALLOT_ASSIGN_OR_RETURN(out.serving, Issue(out.ca, serving));
    ALLOT_RETURN_IF_ERROR(Save(dir, "apiserver", out.serving));
  }

  ALLOT_ASSIGN_OR_RETURN(std::optional<KeyPair> admin, Load(dir, "admin"));
  if (admin && Good(*admin, out.ca, now_unix)) {
    out.admin = *admin;
  } else {
    ALLOT_ASSIGN_OR_RETURN(out.admin, Issue(out.ca, {.common_name = kAdminUser,
                                                     .organizations = {kMastersGroup},
                                                     .client = true,
                                                     .validity = kLeafValidity}));
    ALLOT_RETURN_IF_ERROR(Save(dir, "admin", out.admin));
  }
  return out;
}

Result<KeyPair> IssueClientCertificate(const std::string& dir, const std::string& user,
                                       const std::vector<std::string>& groups,
                                       std::chrono::hours validity) {
  ALLOT_ASSIGN_OR_RETURN(std::optional<KeyPair> ca, Load(dir, "ca"));
  if (!ca) return BadRequestError("no CA in " + dir + " (start `allot serve` there first)");
  return Issue(
      *ca, {.common_name = user, .organizations = groups, .client = true, .validity = validity});
}

}  // namespace allot::pki
