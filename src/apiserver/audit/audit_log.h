// The audit log (kube-apiserver's --audit-log-path, at level Metadata): one JSON line per
// answered request — who (user, groups, source address), what (verb, resource, namespace,
// name, subresource; or the path of a non-resource request) and the response code — in
// Kubernetes' audit.k8s.io/v1 Event shape, so that tools reading kube-apiserver's audit log
// read this one:
//
//   {"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"...",
//    "stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns/pods","verb":"create",
//    "user":{"username":"u","groups":["g","system:authenticated"]},"sourceIPs":["127.0.0.1"],
//    "objectRef":{"resource":"pods","namespace":"ns","name":"p","apiGroup":"",
//    "apiVersion":"v1"},"responseStatus":{"code":201},
//    "requestReceivedTimestamp":"...","stageTimestamp":"..."}
//
// A request served as another user (Impersonate-User) also carries "impersonatedUser" (and,
// when a constrained mode allowed it, "authenticationMetadata":{"impersonationConstraint":...}),
// with "user" the requester, as kube-apiserver writes them.
//
// Request and response bodies are never written. A watch is logged when it ends.
//
// Thread safety: Record is called from every io thread; lines are written whole, in the order
// their requests were answered.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "apiserver/authz/attributes.h"
#include "apiserver/authz/impersonation.h"
#include "common/status.h"
#include "common/time.h"

namespace allot::apiserver::audit {

class AuditLog {
 public:
  // Appends to `path` ("-": standard output). Errors: the file cannot be opened (500).
  static Result<std::shared_ptr<AuditLog>> Open(const std::string& path, Clock& clock);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // One answered request. `received` is when it arrived (on the log's clock). When it was
  // served as another user (`impersonation` set), `user` is the requester and
  // `impersonatedUser` the user in `request`, with the mode that allowed it in
  // `authenticationMetadata.impersonationConstraint`.
  void Record(const authz::Attributes& request, const authz::Impersonation* impersonation,
              std::string_view request_uri, std::string_view remote, int code, Time received);

  // Writes out what is buffered (also done for every line; here for tests and shutdown).
  void Flush();

  Clock& clock() { return clock_; }

 private:
  AuditLog(std::FILE* out, bool owned, Clock& clock) : out_(out), owned_(owned), clock_(clock) {}

  std::mutex mu_;
  std::FILE* out_;  // guarded by mu_
  const bool owned_;
  Clock& clock_;
  uint64_t next_id_ = 0;  // guarded by mu_
};

}  // namespace allot::apiserver::audit
