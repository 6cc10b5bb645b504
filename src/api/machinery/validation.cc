#include "api/machinery/validation.h"

#include <cstdio>

namespace allot::api {

Path Path::Child(std::string_view name) const {
  Path p;
  p.text_ = text_.empty() ? std::string(name) : text_ + "." + std::string(name);
  return p;
}

Path Path::Index(size_t i) const {
  Path p;
  p.text_ = text_ + "[" + std::to_string(i) + "]";
  return p;
}

Path Path::Key(std::string_view key) const {
  Path p;
  p.text_ = text_ + "[" + std::string(key) + "]";
  return p;
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

void FieldErrors::Add(const Path& p, const char* reason, std::string message) {
  causes_.push_back(StatusCause{reason, std::move(message), p.str()});
}

void FieldErrors::Required(const Path& p, std::string_view detail) {
  std::string m = "Required value";
  if (!detail.empty()) m += ": " + std::string(detail);
  Add(p, "FieldValueRequired", std::move(m));
}

void FieldErrors::Invalid(const Path& p, std::string_view value, std::string_view detail) {
  std::string m = "Invalid value: " + Quote(value);
  if (!detail.empty()) m += ": " + std::string(detail);
  Add(p, "FieldValueInvalid", std::move(m));
}

void FieldErrors::InvalidRendered(const Path& p, std::string_view rendered,
                                  std::string_view detail) {
  std::string m = "Invalid value: " + std::string(rendered);
  if (!detail.empty()) m += ": " + std::string(detail);
  Add(p, "FieldValueInvalid", std::move(m));
}

std::string GoStringSlice(const std::vector<std::string>& v) {
  std::string out = "[]string{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += Quote(v[i]);
  }
  return out + "}";
}

std::string GoQuotedList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += " ";
    out += Quote(v[i]);
  }
  return out + "]";
}

void FieldErrors::InvalidInt(const Path& p, int64_t value, std::string_view detail) {
  std::string m = "Invalid value: " + std::to_string(value);
  if (!detail.empty()) m += ": " + std::string(detail);
  Add(p, "FieldValueInvalid", std::move(m));
}

void FieldErrors::TooMany(const Path& p, int64_t actual, int64_t max) {
  Add(p, "FieldValueTooMany",
      "Too many: " + std::to_string(actual) + ": must have at most " + std::to_string(max) +
          " items");
}

void FieldErrors::TooLong(const Path& p, int64_t max) {
  Add(p, "FieldValueTooLong", "Too long: may not be more than " + std::to_string(max) + " bytes");
}

void FieldErrors::NotSupported(const Path& p, std::string_view value,
                               const std::vector<std::string_view>& supported) {
  NotSupportedRendered(p, Quote(value), supported);
}

void FieldErrors::NotSupportedRendered(const Path& p, std::string_view rendered,
                                       const std::vector<std::string_view>& supported) {
  std::string m = "Unsupported value: " + std::string(rendered);
  if (!supported.empty()) {
    m += ": supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i) m += ", ";
      m += Quote(supported[i]);
    }
  }
  Add(p, "FieldValueNotSupported", std::move(m));
}

void FieldErrors::Duplicate(const Path& p, std::string_view value) {
  Add(p, "FieldValueDuplicate", "Duplicate value: " + Quote(value));
}

void FieldErrors::Forbidden(const Path& p, std::string_view detail) {
  Add(p, "FieldValueForbidden", "Forbidden: " + std::string(detail));
}

void FieldErrors::Immutable(const Path& p) {
  Add(p, "FieldValueInvalid", "Invalid value: \"object\": field is immutable");
}

std::vector<std::string> FieldErrors::Messages() const {
  std::vector<std::string> out;
  for (const auto& c : causes_)
    out.push_back(c.field.empty() ? c.message : c.field + ": " + c.message);
  return out;
}

Status FieldErrors::ToStatus(std::string_view kind, std::string_view group,
                             std::string_view name) const {
  if (causes_.empty()) return Status::Ok();
  std::string qualified(kind);
  if (!group.empty()) qualified += "." + std::string(group);
  std::vector<std::string> msgs = Messages();
  std::string joined;
  if (msgs.size() == 1) {
    joined = msgs[0];
  } else {
    joined = "[";
    for (size_t i = 0; i < msgs.size(); ++i) {
      if (i) joined += ", ";
      joined += msgs[i];
    }
    joined += "]";
  }
  Status s(StatusCode::kInvalid, qualified + " " + Quote(name) + " is invalid: " + joined);
  StatusDetails d;
  d.name = std::string(name);
  d.group = std::string(group);
  d.kind = std::string(kind);
  d.causes = causes_;
  s.WithDetails(std::move(d));
  return s;
}

}  // namespace allot::api
