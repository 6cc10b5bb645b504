#include "pki/pki.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>

namespace allot::pki {

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(GENERAL_NAMES* p) const { GENERAL_NAMES_free(p); }
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
  void operator()(X509_STORE_CTX* p) const { X509_STORE_CTX_free(p); }
  void operator()(BASIC_CONSTRAINTS* p) const { BASIC_CONSTRAINTS_free(p); }
};
template <class T>
using Owned = std::unique_ptr<T, Free>;

// The oldest error OpenSSL queued (the queue is cleared).
std::string OpenSslError(std::string_view what) {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  std::string out(what);
  if (e != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    out += ": ";
    out += buf;
  }
  return out;
}

Result<Owned<EVP_PKEY>> NewKey() {
  Owned<EVP_PKEY> key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) return InternalError(OpenSslError("generating a P-256 key"));
  return key;
}

Result<Owned<X509>> ParseCert(std::string_view pem) {
  Owned<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Owned<X509> cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!cert) {
    ERR_clear_error();
    return BadRequestError("no PEM certificate found");
  }
  return cert;
}

Result<Owned<EVP_PKEY>> ParseKey(std::string_view pem) {
  Owned<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Owned<EVP_PKEY> key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
                          : nullptr);
  if (!key) {
    ERR_clear_error();
    return BadRequestError("no PEM private key found");
  }
  return key;
}

std::string ReadBio(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

Result<std::string> CertPem(X509* cert) {
  Owned<BIO> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
    return InternalError(OpenSslError("encoding a certificate"));
  }
  return ReadBio(bio.get());
}

Result<std::string> KeyPem(EVP_PKEY* key) {
  Owned<BIO> bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return InternalError(OpenSslError("encoding a private key"));
  }
  return ReadBio(bio.get());
}

// A DNS name or wildcard a subjectAltName may carry: letters, digits, '-', '.', a leading "*.".
bool ValidDnsName(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  if (name.starts_with("*.")) name.remove_prefix(2);
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '.';
    if (!ok) return false;
  }
  return !name.empty();
}

Status AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  Owned<X509_EXTENSION> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    return InternalError(OpenSslError(std::string("adding extension ") + OBJ_nid2sn(nid)));
  }
  return Status::Ok();
}

Status AddAltNames(X509* cert, const CertSpec& spec) {
  if (spec.dns_names.empty() && spec.ip_addresses.empty()) return Status::Ok();
  Owned<GENERAL_NAMES> names(sk_GENERAL_NAME_new_null());
  for (const std::string& dns : spec.dns_names) {
    if (!ValidDnsName(dns)) return BadRequestError("invalid DNS name \"" + dns + "\"");
    GENERAL_NAME* g = GENERAL_NAME_new();
    ASN1_IA5STRING* s = ASN1_IA5STRING_new();
    ASN1_STRING_set(s, dns.data(), static_cast<int>(dns.size()));
    GENERAL_NAME_set0_value(g, GEN_DNS, s);
    sk_GENERAL_NAME_push(names.get(), g);
  }
  for (const std::string& ip : spec.ip_addresses) {
    ASN1_OCTET_STRING* octets = a2i_IPADDRESS(ip.c_str());
    if (!octets) {
      ERR_clear_error();
      return BadRequestError("invalid IP address \"" + ip + "\"");
    }
    GENERAL_NAME* g = GENERAL_NAME_new();
    GENERAL_NAME_set0_value(g, GEN_IPADD, octets);
    sk_GENERAL_NAME_push(names.get(), g);
  }
  if (X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) != 1) {
    return InternalError(OpenSslError("adding subjectAltName"));
  }
  return Status::Ok();
}

// A certificate for `key` with `spec`'s subject, issued by `issuer` (null: self-signed) and
// signed with `signer`.
Result<Owned<X509>> Build(const CertSpec& spec, bool is_ca, EVP_PKEY* key, X509* issuer,
                          EVP_PKEY* signer) {
  if (spec.common_name.empty()) return BadRequestError("a certificate needs a common name");
  Owned<X509> cert(X509_new());
  if (!cert || X509_set_version(cert.get(), 2) != 1) {
    return InternalError(OpenSslError("creating a certificate"));
  }
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return InternalError(OpenSslError("serial"));
  serial[0] &= 0x7f;  // positive
  Owned<BIGNUM> bn(BN_bin2bn(serial, sizeof(serial), nullptr));
  if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()))) {
    return InternalError(OpenSslError("serial"));
  }
  // Valid from five minutes ago: clocks of client and server disagree a little.
  const long validity =
      static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(spec.validity).count());
  if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), -300) ||
      !X509_gmtime_adj(X509_getm_notAfter(cert.get()), validity)) {
    return InternalError(OpenSslError("validity"));
  }
  if (X509_set_pubkey(cert.get(), key) != 1) return InternalError(OpenSslError("public key"));
  X509_NAME* subject = X509_get_subject_name(cert.get());
  for (const std::string& o : spec.organizations) {
    if (X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1,
                                   0) != 1) {
      return BadRequestError(OpenSslError("organization \"" + o + "\""));
    }
  }
  if (X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(spec.common_name.c_str()),
                                 -1, -1, 0) != 1) {
    return BadRequestError(OpenSslError("common name \"" + spec.common_name + "\""));
  }
  X509* signed_by = issuer ? issuer : cert.get();
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(signed_by)) != 1) {
    return InternalError(OpenSslError("issuer"));
  }
  ALLOT_RETURN_IF_ERROR(AddExtension(cert.get(), signed_by, NID_basic_constraints,
                                     is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE"));
  ALLOT_RETURN_IF_ERROR(AddExtension(
      cert.get(), signed_by, NID_key_usage,
      is_ca ? "critical,digitalSignature,keyCertSign,cRLSign" : "critical,digitalSignature"));
  std::string usages;
  if (spec.server) usages = "serverAuth";
  if (spec.client) usages += usages.empty() ? "clientAuth" : ",clientAuth";
  if (!usages.empty()) {
    ALLOT_RETURN_IF_ERROR(AddExtension(cert.get(), signed_by, NID_ext_key_usage, usages.c_str()));
  }
  ALLOT_RETURN_IF_ERROR(AddExtension(cert.get(), signed_by, NID_subject_key_identifier, "hash"));
  if (issuer) {
    ALLOT_RETURN_IF_ERROR(
        AddExtension(cert.get(), signed_by, NID_authority_key_identifier, "keyid:always"));
  }
  ALLOT_RETURN_IF_ERROR(AddAltNames(cert.get(), spec));
  if (X509_sign(cert.get(), signer, EVP_sha256()) <= 0) {
    return InternalError(OpenSslError("signing a certificate"));
  }
  return cert;
}

std::string Utf8(const ASN1_STRING* s) {
  unsigned char* out = nullptr;
  int n = ASN1_STRING_to_UTF8(&out, s);
  if (n < 0) return {};
  std::string str(reinterpret_cast<char*>(out), static_cast<size_t>(n));
  OPENSSL_free(out);
  return str;
}

std::vector<std::string> NameEntries(X509_NAME* name, int nid) {
  std::vector<std::string> out;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    out.push_back(Utf8(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i))));
  }
  return out;
}

int64_t UnixTime(const ASN1_TIME* t) {
  std::tm tm{};
  if (ASN1_TIME_to_tm(t, &tm) != 1) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

}  // namespace

Result<KeyPair> NewCA(std::string_view common_name, std::chrono::hours validity) {
  ALLOT_ASSIGN_OR_RETURN(Owned<EVP_PKEY> key, NewKey());
  CertSpec spec;
  spec.common_name = std::string(common_name);
  spec.validity = validity;
  ALLOT_ASSIGN_OR_RETURN(Owned<X509> cert, Build(spec, true, key.get(), nullptr, key.get()));
  KeyPair out;
  ALLOT_ASSIGN_OR_RETURN(out.cert_pem, CertPem(cert.get()));
  ALLOT_ASSIGN_OR_RETURN(out.key_pem, KeyPem(key.get()));
  return out;
}

Result<KeyPair> Issue(const KeyPair& ca, const CertSpec& spec) {
  ALLOT_ASSIGN_OR_RETURN(Owned<X509> ca_cert, ParseCert(ca.cert_pem));
  ALLOT_ASSIGN_OR_RETURN(Owned<EVP_PKEY> ca_key, ParseKey(ca.key_pem));
  if (X509_check_private_key(ca_cert.get(), ca_key.get()) != 1) {
    ERR_clear_error();
    return BadRequestError("the CA's key does not match its certificate");
  }
  if (X509_check_ca(ca_cert.get()) <= 0) {
    return BadRequestError("the issuing certificate is not a CA");
  }
  ALLOT_ASSIGN_OR_RETURN(Owned<EVP_PKEY> key, NewKey());
  ALLOT_ASSIGN_OR_RETURN(Owned<X509> cert,
                         Build(spec, false, key.get(), ca_cert.get(), ca_key.get()));
  KeyPair out;
  ALLOT_ASSIGN_OR_RETURN(out.cert_pem, CertPem(cert.get()));
  ALLOT_ASSIGN_OR_RETURN(out.key_pem, KeyPem(key.get()));
  return out;
}

Result<CertInfo> Inspect(std::string_view cert_pem) {
  ALLOT_ASSIGN_OR_RETURN(Owned<X509> cert, ParseCert(cert_pem));
  CertInfo info;
  X509_NAME* subject = X509_get_subject_name(cert.get());
  std::vector<std::string> cn = NameEntries(subject, NID_commonName);
  if (!cn.empty()) info.common_name = cn.back();
  info.organizations = NameEntries(subject, NID_organizationName);
  Owned<GENERAL_NAMES> names(static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert.get(), NID_subject_alt_name, nullptr, nullptr)));
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* g = sk_GENERAL_NAME_value(names.get(), i);
    if (g->type == GEN_DNS) {
      info.dns_names.push_back(Utf8(g->d.dNSName));
    } else if (g->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = g->d.iPAddress;
      char buf[INET6_ADDRSTRLEN] = {};
      int family = ASN1_STRING_length(ip) == 4 ? AF_INET : AF_INET6;
      if (inet_ntop(family, ASN1_STRING_get0_data(ip), buf, sizeof(buf))) {
        info.ip_addresses.emplace_back(buf);
      }
    }
  }
  info.not_before = UnixTime(X509_get0_notBefore(cert.get()));
  info.not_after = UnixTime(X509_get0_notAfter(cert.get()));
  info.is_ca = X509_check_ca(cert.get()) > 0;
  return info;
}

Status Verify(std::string_view cert_pem, std::string_view ca_pem, int64_t now_unix) {
  ALLOT_ASSIGN_OR_RETURN(Owned<X509> cert, ParseCert(cert_pem));
  ALLOT_ASSIGN_OR_RETURN(Owned<X509> ca, ParseCert(ca_pem));
  Owned<X509_STORE> store(X509_STORE_new());
  Owned<X509_STORE_CTX> ctx(X509_STORE_CTX_new());
  if (!store || !ctx || X509_STORE_add_cert(store.get(), ca.get()) != 1 ||
      X509_STORE_CTX_init(ctx.get(), store.get(), cert.get(), nullptr) != 1) {
    return InternalError(OpenSslError("preparing verification"));
  }
  X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx.get()), static_cast<time_t>(now_unix));
  if (X509_verify_cert(ctx.get()) != 1) {
    ERR_clear_error();
    return Status(StatusCode::kUnauthorized,
                  X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get())));
  }
  return Status::Ok();
}

Status MatchesKey(std::string_view cert_pem, std::string_view key_pem) {
  ALLOT_ASSIGN_OR_RETURN(Owned<X509> cert, ParseCert(cert_pem));
  ALLOT_ASSIGN_OR_RETURN(Owned<EVP_PKEY> key, ParseKey(key_pem));
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return BadRequestError("the private key does not match the certificate");
  }
  return Status::Ok();
}

}  // namespace allot::pki
