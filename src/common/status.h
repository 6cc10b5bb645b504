// Status and Result<T>: the error currency of Allot.
//
// A Status is either OK or an error that maps one-to-one onto a Kubernetes `Status` object:
// an HTTP code, a machine-readable reason (NotFound, Conflict, Invalid, ...), a human message
// and, for validation failures, per-field causes. Code anywhere below the API server returns
// these; the server only serializes them. An OK Status holds no allocation.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace allot {

// The Kubernetes StatusReason values we use, with their HTTP codes.
enum class StatusCode {
  kOk = 0,
  kBadRequest,             // 400 BadRequest
  kUnauthorized,           // 401 Unauthorized
  kForbidden,              // 403 Forbidden
  kNotFound,               // 404 NotFound
  kMethodNotAllowed,       // 405 MethodNotAllowed
  kNotAcceptable,          // 406 NotAcceptable
  kAlreadyExists,          // 409 AlreadyExists
  kConflict,               // 409 Conflict
  kGone,                   // 410 Gone
  kExpired,                // 410 Expired
  kRequestEntityTooLarge,  // 413 RequestEntityTooLarge
  kUnsupportedMediaType,   // 415 UnsupportedMediaType
  kInvalid,                // 422 Invalid
  kTooManyRequests,        // 429 TooManyRequests
  kInternalError,          // 500 InternalError
  kServiceUnavailable,     // 503 ServiceUnavailable
  kTimeout,                // 504 Timeout
};

int HttpCode(StatusCode code);
// The Kubernetes reason string ("NotFound", "Conflict", ...); "" for kOk.
std::string_view ReasonString(StatusCode code);

// One per-field cause of an Invalid (or strict-decoding BadRequest) error.
struct StatusCause {
  std::string reason;   // e.g. "FieldValueTooMany", "FieldValueRequired"
  std::string message;  // e.g. "Too many: 5: must have at most 4 items"
  std::string field;    // e.g. "spec.devices[3].bindingConditions"
  bool operator==(const StatusCause&) const = default;
};

// Names the object an error is about (Status.details).
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;  // resource plural, or Kind for Invalid (as Kubernetes does)
  std::string uid;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Ok() { return Status(); }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  const std::string& message() const;
  const StatusDetails& details() const;
  StatusDetails& mutable_details();

  // Fluent helpers for building errors.
  Status& WithDetails(StatusDetails details);
  Status& AddCause(StatusCause cause);

  // "NotFound: pods \"x\" not found" — for logs and test failures.
  std::string ToString() const;

 private:
  struct Rep {
    StatusCode code;
    std::string message;
    StatusDetails details;
  };
  std::unique_ptr<Rep> rep_;
};

// Constructors for the common errors, with Kubernetes' message formats.
// `resource` is "pods" or "resourceclaims.resource.k8s.io" (group-qualified for non-core).
Status NotFoundError(std::string_view resource, std::string_view name);
Status AlreadyExistsError(std::string_view resource, std::string_view name);
Status ConflictError(std::string_view resource, std::string_view name, std::string_view why);
// 403: `<resource> "<name>" is forbidden: <why>` (an admission refusal); without the name
// when it is empty (a create by generateName).
Status ForbiddenError(std::string_view resource, std::string_view name, std::string_view why);
Status BadRequestError(std::string message);
Status InternalError(std::string message);

// Result<T>: a T or an error Status.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  Status TakeStatus() { return std::move(status_); }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace allot

// Early return on error: ALLOT_RETURN_IF_ERROR(DoThing());
#define ALLOT_RETURN_IF_ERROR(expr)        \
  do {                                     \
    ::allot::Status _st = (expr);          \
    if (!_st.ok()) return _st;             \
  } while (0)

#define ALLOT_CONCAT_INNER(a, b) a##b
#define ALLOT_CONCAT(a, b) ALLOT_CONCAT_INNER(a, b)
// ALLOT_ASSIGN_OR_RETURN(auto x, MakeX());
#define ALLOT_ASSIGN_OR_RETURN(lhs, expr) \
  ALLOT_ASSIGN_OR_RETURN_IMPL(ALLOT_CONCAT(_res_, __LINE__), lhs, expr)
#define ALLOT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.TakeStatus();           \
  lhs = std::move(tmp).value()
