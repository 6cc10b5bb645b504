#include "drivers/config/decoder.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "api/codec/yaml.h"
#include "api/machinery/meta_validation.h"
#include "api/resource/validation.h"
#include "common/go_duration.h"

namespace allot::drivers {

std::string JsonText(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buf);
  v.Accept(writer);
  return std::string(buf.GetString(), buf.GetSize());
}

std::string DurationText(std::chrono::microseconds d) {
  if (d.count() % 1000000 == 0) return std::to_string(d.count() / 1000000) + "s";
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "ms";
  return std::to_string(d.count()) + "us";
}

Result<rapidjson::Document> ParseConfigDocument(std::string_view yaml, std::string_view what) {
  Result<std::string> json = api::YamlDocumentToJson(yaml);
  if (!json.ok()) {
    return BadRequestError("invalid " + std::string(what) + ": " + json.status().message());
  }
  rapidjson::Document doc;
  doc.Parse(json->data(), json->size());
  if (doc.HasParseError()) {
    return BadRequestError("invalid " + std::string(what) + ": not a JSON document");
  }
  return doc;
}

Status ConfigProblems(std::string_view what, const std::vector<std::string>& problems) {
  if (problems.empty()) return Status::Ok();
  std::string msg = "invalid " + std::string(what) + ":";
  for (const std::string& problem : problems) msg += "\n  " + problem;
  return BadRequestError(msg);
}

void ValidateDriverName(const std::string& driver, const api::Path& p, api::FieldErrors& errs) {
  if (driver.empty()) return errs.Required(p);
  api::ValidateDnsSubdomain(driver, p, errs);
  if (driver.size() > api::kDriverNameMaxLength) {
    errs.TooLong(p, static_cast<int64_t>(api::kDriverNameMaxLength));
  }
}

void ValidateNodeLabels(const std::map<std::string, std::string>& labels, const api::Path& p,
                        api::FieldErrors& errs) {
  for (const auto& [label, value] : labels) {
    api::ValidateLabelName(label, p.Key(label), errs);
    api::ValidateLabelValue(value, p.Key(label), errs);
  }
}

void ValidateDuration(std::chrono::microseconds d, const api::Path& p, bool positive,
                      api::FieldErrors& errs) {
  if (d.count() < 0 || (positive && d.count() == 0)) {
    errs.Invalid(p, DurationText(d), positive ? "must be positive" : "must not be negative");
  }
}

void ValidateProbability(double v, const api::Path& p, api::FieldErrors& errs) {
  if (!(v >= 0 && v <= 1)) errs.Invalid(p, std::to_string(v), "must be between 0 and 1");
}

std::vector<std::string> ConfigDecoder::Problems() const {
  std::vector<std::string> out = unknown_;
  for (std::string& m : errs_.Messages()) out.push_back(std::move(m));
  return out;
}

void ConfigDecoder::Unknown(const api::Path& p) {
  unknown_.push_back("unknown field " + api::Quote(p.str()));
}

void ConfigDecoder::Fields(const rapidjson::Value& v, const api::Path& p, std::string_view names,
                           const FieldFn& field) {
  if (!v.IsObject()) {
    Invalid(v, p, "must be a map of fields (" + std::string(names) + ")");
    return;
  }
  for (const auto& m : v.GetObject()) {
    std::string key(m.name.GetString(), m.name.GetStringLength());
    api::Path fp = p.Child(key);
    if (!field(key, fp, m.value)) Unknown(fp);
  }
}

void ConfigDecoder::Invalid(const rapidjson::Value& v, const api::Path& p,
                            std::string_view detail) {
  if (v.IsString()) {
    errs_.Invalid(p, v.GetString(), detail);
  } else if (v.IsInt64()) {
    errs_.InvalidInt(p, v.GetInt64(), detail);
  } else {
    errs_.Invalid(p, JsonText(v), detail);
  }
}

bool ConfigDecoder::String(const rapidjson::Value& v, const api::Path& p, std::string& out) {
  if (!v.IsString()) {
    Invalid(v, p, "must be a string");
    return false;
  }
  out.assign(v.GetString(), v.GetStringLength());
  return true;
}

void ConfigDecoder::StringMap(const rapidjson::Value& v, const api::Path& p,
                              std::map<std::string, std::string>& out) {
  if (!v.IsObject()) return Invalid(v, p, "must be a map of strings");
  for (const auto& m : v.GetObject()) {
    String(m.value, p.Key(m.name.GetString()), out[m.name.GetString()]);
  }
}

void ConfigDecoder::StringList(const rapidjson::Value& v, const api::Path& p,
                               std::vector<std::string>& out) {
  if (!v.IsArray()) return Invalid(v, p, "must be a list of strings");
  out.clear();
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    std::string s;
    if (String(v[i], p.Index(i), s)) out.push_back(std::move(s));
  }
}

void ConfigDecoder::Duration(const rapidjson::Value& v, const api::Path& p,
                             std::chrono::microseconds& out) {
  if (!v.IsString()) return Invalid(v, p, "must be a duration such as \"2s\" or \"500ms\"");
  Result<std::chrono::microseconds> d = ParseGoDuration(v.GetString());
  if (!d.ok()) return errs_.Invalid(p, v.GetString(), d.status().message());
  out = *d;
}

void ConfigDecoder::Int(const rapidjson::Value& v, const api::Path& p, int64_t& out) {
  if (!v.IsInt64()) return Invalid(v, p, "must be an integer");
  out = v.GetInt64();
}

void ConfigDecoder::Uint(const rapidjson::Value& v, const api::Path& p, uint64_t& out) {
  if (!v.IsUint64()) return Invalid(v, p, "must be a non-negative integer");
  out = v.GetUint64();
}

void ConfigDecoder::Number(const rapidjson::Value& v, const api::Path& p, double& out) {
  if (!v.IsNumber()) return Invalid(v, p, "must be a number");
  out = v.GetDouble();
}

}  // namespace allot::drivers
