#include "apiserver/audit/audit_log.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "api/codec/codec.h"

namespace allot::apiserver::audit {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// The address without its port: "127.0.0.1:5555" -> "127.0.0.1", "[::1]:80" -> "::1".
std::string_view HostOf(std::string_view remote) {
  size_t colon = remote.rfind(':');
  if (colon != std::string_view::npos) remote = remote.substr(0, colon);
  if (remote.size() >= 2 && remote.front() == '[' && remote.back() == ']') {
    remote = remote.substr(1, remote.size() - 2);
  }
  return remote;
}

}  // namespace

Result<std::shared_ptr<AuditLog>> AuditLog::Open(const std::string& path, Clock& clock) {
  if (path == "-") return std::shared_ptr<AuditLog>(new AuditLog(stdout, false, clock));
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) {
    return InternalError("cannot open the audit log " + path + ": " + std::strerror(errno));
  }
  return std::shared_ptr<AuditLog>(new AuditLog(f, true, clock));
}

AuditLog::~AuditLog() {
  Flush();
  if (owned_) std::fclose(out_);
}

void AuditLog::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  std::fflush(out_);
}

namespace {

void WriteUser(Writer& w, const authn::UserInfo& user) {
  w.StartObject();
  w.Key("username");
  api::WriteString(w, user.name);
  if (!user.uid.empty()) {
    w.Key("uid");
    api::WriteString(w, user.uid);
  }
  w.Key("groups");
  w.StartArray();
  for (const std::string& g : user.groups) api::WriteString(w, g);
  w.EndArray();
  if (!user.extra.empty()) {
    w.Key("extra");
    w.StartObject();
    for (const auto& [key, values] : user.extra) {
      api::WriteString(w, key);
      w.StartArray();
      for (const std::string& v : values) api::WriteString(w, v);
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndObject();
}

}  // namespace

void AuditLog::Record(const authz::Attributes& a, const authz::Impersonation* impersonation,
                      std::string_view request_uri, std::string_view remote, int code,
                      Time received) {
  static const uint64_t kProcessId = [] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) | rd();
  }();
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("kind");
  w.String("Event");
  w.Key("apiVersion");
  w.String("audit.k8s.io/v1");
  w.Key("level");
  w.String("Metadata");
  w.Key("stage");
  w.String("ResponseComplete");
  w.Key("requestURI");
  api::WriteString(w, request_uri);
  w.Key("verb");
  api::WriteString(w, a.verb);
  w.Key("user");
  WriteUser(w, impersonation ? impersonation->requester : a.user);
  if (impersonation) {
    w.Key("impersonatedUser");
    WriteUser(w, a.user);
  }
  w.Key("sourceIPs");
  w.StartArray();
  api::WriteString(w, HostOf(remote));
  w.EndArray();
  if (a.resource_request) {
    w.Key("objectRef");
    w.StartObject();
    w.Key("resource");
    api::WriteString(w, a.resource);
    if (!a.namespace_.empty()) {
      w.Key("namespace");
      api::WriteString(w, a.namespace_);
    }
    if (!a.name.empty()) {
      w.Key("name");
      api::WriteString(w, a.name);
    }
    w.Key("apiGroup");
    api::WriteString(w, a.api_group);
    w.Key("apiVersion");
    api::WriteString(w, a.api_version);
    if (!a.subresource.empty()) {
      w.Key("subresource");
      api::WriteString(w, a.subresource);
    }
    w.EndObject();
  }
  if (impersonation && !impersonation->constraint.empty()) {
    w.Key("authenticationMetadata");
    w.StartObject();
    w.Key("impersonationConstraint");
    api::WriteString(w, impersonation->constraint);
    w.EndObject();
  }
  w.Key("responseStatus");
  w.StartObject();
  w.Key("code");
  w.Int(code);
  w.EndObject();
  w.Key("requestReceivedTimestamp");
  api::WriteString(w, received.ToRfc3339Micro());
  w.Key("stageTimestamp");
  api::WriteString(w, clock_.Now().ToRfc3339Micro());

  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t id = next_id_++;
  char audit_id[64];
  std::snprintf(
      audit_id, sizeof audit_id, "%08x-%04x-4%03x-8%03x-%012llx",
      static_cast<unsigned>(kProcessId >> 32), static_cast<unsigned>((kProcessId >> 16) & 0xffff),
      static_cast<unsigned>(kProcessId & 0xfff), static_cast<unsigned>((id >> 48) & 0xfff),
      static_cast<unsigned long long>(id & 0xffffffffffffULL));
  w.Key("auditID");
  w.String(audit_id);
  w.EndObject();
  std::fwrite(buf.GetString(), 1, buf.GetSize(), out_);
  std::fputc('\n', out_);
  std::fflush(out_);
}

}  // namespace allot::apiserver::audit
