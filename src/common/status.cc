#include "common/status.h"

namespace allot {

int HttpCode(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return 200;
    case StatusCode::kBadRequest: return 400;
    case StatusCode::kUnauthorized: return 401;
    case StatusCode::kForbidden: return 403;
    case StatusCode::kNotFound: return 404;
    case StatusCode::kMethodNotAllowed: return 405;
    case StatusCode::kNotAcceptable: return 406;
    case StatusCode::kAlreadyExists: return 409;
    case StatusCode::kConflict: return 409;
    case StatusCode::kGone: return 410;
    case StatusCode::kExpired: return 410;
    case StatusCode::kRequestEntityTooLarge: return 413;
    case StatusCode::kUnsupportedMediaType: return 415;
    case StatusCode::kInvalid: return 422;
    case StatusCode::kTooManyRequests: return 429;
    case StatusCode::kInternalError: return 500;
    case StatusCode::kServiceUnavailable: return 503;
    case StatusCode::kTimeout: return 504;
  }
  return 500;
}

std::string_view ReasonString(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "";
    case StatusCode::kBadRequest: return "BadRequest";
    case StatusCode::kUnauthorized: return "Unauthorized";
    case StatusCode::kForbidden: return "Forbidden";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kMethodNotAllowed: return "MethodNotAllowed";
    case StatusCode::kNotAcceptable: return "NotAcceptable";
    case StatusCode::kAlreadyExists: return "AlreadyExists";
    case StatusCode::kConflict: return "Conflict";
    case StatusCode::kGone: return "Gone";
    case StatusCode::kExpired: return "Expired";
    case StatusCode::kRequestEntityTooLarge: return "RequestEntityTooLarge";
    case StatusCode::kUnsupportedMediaType: return "UnsupportedMediaType";
    case StatusCode::kInvalid: return "Invalid";
    case StatusCode::kTooManyRequests: return "TooManyRequests";
    case StatusCode::kInternalError: return "InternalError";
    case StatusCode::kServiceUnavailable: return "ServiceUnavailable";
    case StatusCode::kTimeout: return "Timeout";
  }
  return "InternalError";
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) {
    rep_ = std::make_unique<Rep>(Rep{code, std::move(message), {}});
  }
}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

const StatusDetails& Status::details() const {
  static const StatusDetails kEmpty;
  return rep_ ? rep_->details : kEmpty;
}

StatusDetails& Status::mutable_details() {
  if (!rep_) rep_ = std::make_unique<Rep>(Rep{StatusCode::kInternalError, "", {}});
  return rep_->details;
}

Status& Status::WithDetails(StatusDetails details) {
  mutable_details() = std::move(details);
  return *this;
}

Status& Status::AddCause(StatusCause cause) {
  mutable_details().causes.push_back(std::move(cause));
  return *this;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(ReasonString(code()));
  out += ": ";
  out += message();
  return out;
}

namespace {
// "resourceclaims.resource.k8s.io" -> {"resourceclaims", "resource.k8s.io"}
StatusDetails DetailsFor(std::string_view qualified, std::string_view name) {
  StatusDetails d;
  d.name = std::string(name);
  auto dot = qualified.find('.');
  if (dot == std::string_view::npos) {
    d.kind = std::string(qualified);
  } else {
    d.kind = std::string(qualified.substr(0, dot));
    d.group = std::string(qualified.substr(dot + 1));
  }
  return d;
}
}  // namespace

Status NotFoundError(std::string_view resource, std::string_view name) {
  Status s(StatusCode::kNotFound,
           std::string(resource) + " \"" + std::string(name) + "\" not found");
  s.WithDetails(DetailsFor(resource, name));
  return s;
}

Status AlreadyExistsError(std::string_view resource, std::string_view name) {
  Status s(StatusCode::kAlreadyExists,
           std::string(resource) + " \"" + std::string(name) + "\" already exists");
  s.WithDetails(DetailsFor(resource, name));
  return s;
}

Status ConflictError(std::string_view resource, std::string_view name, std::string_view why) {
  Status s(StatusCode::kConflict, "Operation cannot be fulfilled on " + std::string(resource) +
                                      " \"" + std::string(name) + "\": " + std::string(why));
  s.WithDetails(DetailsFor(resource, name));
  return s;
}

Status ForbiddenError(std::string_view resource, std::string_view name, std::string_view why) {
  std::string msg(resource);
  if (!name.empty()) msg += " \"" + std::string(name) + "\"";
  Status s(StatusCode::kForbidden, msg + " is forbidden: " + std::string(why));
  s.WithDetails(DetailsFor(resource, name));
  return s;
}

Status BadRequestError(std::string message) {
  return Status(StatusCode::kBadRequest, std::move(message));
}

Status InternalError(std::string message) {
  return Status(StatusCode::kInternalError, std::move(message));
}

}  // namespace allot
