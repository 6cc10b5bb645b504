#include "api/codec/codec.h"

#include <cxxabi.h>
#include <rapidjson/error/en.h>

#include <cstdlib>

#include "api/machinery/reflect.h"
#include "api/machinery/scheme.h"
#include "common/base64.h"

namespace allot::api {

// --- DecodeContext ----------------------------------------------------------------------------

std::string DecodeContext::Path() const {
  std::string out;
  for (const Segment& s : path_) {
    if (s.index == -1) {
      if (!out.empty()) out += '.';
      out.append(s.name);
    } else if (s.index == -2) {
      out += '[';
      out.append(s.name);
      out += ']';
    } else {
      out += '[';
      out += std::to_string(s.index);
      out += ']';
    }
  }
  return out;
}

std::string DecodeContext::PathWith(std::string_view field) const {
  std::string p = Path();
  if (!p.empty()) p += '.';
  p.append(field);
  return p;
}

namespace {
const char* JsonTypeName(const JsonValue& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "bool";
  if (v.IsString()) return "string";
  if (v.IsArray()) return "array";
  if (v.IsObject()) return "object";
  if (v.IsInt64() || v.IsUint64()) return "number";
  return "number";
}
}  // namespace

bool DecodeContext::TypeError(std::string_view expected, const JsonValue& got) {
  if (error_.empty()) {
    error_ = "json: cannot unmarshal " + std::string(JsonTypeName(got)) + " into field " + Path() +
             " of type " + std::string(expected);
  }
  return false;
}

bool DecodeContext::ValueError(std::string message) {
  if (error_.empty()) error_ = Path() + ": " + message;
  return false;
}

// --- codecs declared in api/machinery/reflect.h
// -------------------------------------------------------------

namespace reflect {

bool Codec<Quantity>::Decode(const JsonValue& j, Quantity& out, DecodeContext& ctx) {
  std::string text;
  if (j.IsString()) {
    text.assign(j.GetString(), j.GetStringLength());
  } else if (j.IsInt64()) {
    text = std::to_string(j.GetInt64());
  } else if (j.IsNumber()) {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    j.Accept(w);
    text.assign(buf.GetString(), buf.GetSize());
  } else {
    return ctx.TypeError("quantity", j);
  }
  auto q = Quantity::Parse(text);
  if (!q.ok()) {
    return ctx.ValueError(
        "quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  }
  out = *q;
  return true;
}

void Codec<Bytes>::Encode(JsonWriter& w, const Bytes& v) {
  Codec<std::string>::Encode(w, Base64Encode(v.data));
}

bool Codec<Bytes>::Decode(const JsonValue& j, Bytes& out, DecodeContext& ctx) {
  if (j.IsNull()) {
    out.data.clear();
    return true;
  }
  if (!j.IsString()) return ctx.TypeError("base64 string", j);
  std::optional<std::string> bytes = Base64Decode(std::string_view(j.GetString(), j.GetStringLength()));
  if (!bytes) return ctx.ValueError("illegal base64 data");
  out.data = std::move(*bytes);
  return true;
}

bool Codec<RawJson>::Decode(const JsonValue& j, RawJson& out, DecodeContext&) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  j.Accept(w);
  out.json.assign(buf.GetString(), buf.GetSize());
  return true;
}

std::string DemangledName(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : mangled;
  std::free(d);
  auto colon = out.rfind("::");
  if (colon != std::string::npos) out = out.substr(colon + 2);
  return out;
}

}  // namespace reflect

// --- Duration ---------------------------------------------------------------------------------

std::string Duration::ToString() const {
  // Go's time.Duration.String().
  int64_t n = nanos;
  if (n == 0) return "0s";
  std::string sign = n < 0 ? "-" : "";
  uint64_t u = n < 0 ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  auto frac = [](uint64_t v, int digits) {
    std::string s = std::to_string(v);
    while (static_cast<int>(s.size()) < digits) s = "0" + s;
    while (!s.empty() && s.back() == '0') s.pop_back();
    return s.empty() ? std::string() : "." + s;
  };
  if (u < 1000000000ULL) {
    if (u < 1000ULL) return sign + std::to_string(u) + "ns";
    if (u < 1000000ULL) return sign + std::to_string(u / 1000) + frac(u % 1000, 3) + "µs";
    return sign + std::to_string(u / 1000000) + frac(u % 1000000, 6) + "ms";
  }
  uint64_t secs = u / 1000000000ULL;
  std::string s = std::to_string(secs % 60) + frac(u % 1000000000ULL, 9) + "s";
  uint64_t mins = secs / 60;
  if (mins == 0) return sign + s;
  s = std::to_string(mins % 60) + "m" + s;
  uint64_t hours = mins / 60;
  if (hours == 0) return sign + s;
  return sign + std::to_string(hours) + "h" + s;
}

bool Duration::Parse(const std::string& text, Duration& out) {
  // Go's time.ParseDuration: [-+]?([0-9]*(\.[0-9]*)?[a-z]+)+
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) neg = text[i++] == '-';
  if (text == "0" || (i < text.size() && text.substr(i) == "0")) {
    out.nanos = 0;
    return true;
  }
  if (i >= text.size()) return false;
  long double total = 0;
  while (i < text.size()) {
    size_t start = i;
    long double value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
      value = value * 10 + (text[i++] - '0');
    if (i < text.size() && text[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        value += (text[i++] - '0') * scale;
        scale /= 10;
      }
    }
    if (i == start) return false;
    size_t us = i;
    while (i < text.size() && !(text[i] >= '0' && text[i] <= '9') && text[i] != '.') ++i;
    std::string unit = text.substr(us, i - us);
    long double mult;
    if (unit == "ns")
      mult = 1;
    else if (unit == "us" || unit == "µs" || unit == "μs")
      mult = 1e3L;
    else if (unit == "ms")
      mult = 1e6L;
    else if (unit == "s")
      mult = 1e9L;
    else if (unit == "m")
      mult = 60e9L;
    else if (unit == "h")
      mult = 3600e9L;
    else
      return false;
    total += value * mult;
  }
  if (total > 9.2e18L) return false;
  out.nanos = static_cast<int64_t>(neg ? -total : total);
  return true;
}

// --- whole objects ----------------------------------------------------------------------------

void WriteString(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void EncodeJson(const Object& obj, JsonWriter& w) { obj.type().encode(obj, w); }

std::string EncodeJson(const Object& obj) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  obj.type().encode(obj, w);
  return std::string(buf.GetString(), buf.GetSize());
}

Status JsonParseError(std::string_view text, size_t offset, const char* what) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return BadRequestError("invalid JSON at line " + std::to_string(line) + ", column " +
                         std::to_string(col) + " (offset " + std::to_string(offset) + "): " + what);
}

// Rejects JSON nested deeper than max_depth before any recursive code sees it.
Status CheckJsonDepth(std::string_view json, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) {
        return BadRequestError("the request body is nested too deeply: exceeded max depth of " +
                               std::to_string(max_depth));
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return Status::Ok();
}

Result<Decoded> DecodeJson(std::string_view json, const DecodeOptions& options) {
  ALLOT_RETURN_IF_ERROR(CheckJsonDepth(json));
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    return JsonParseError(json, doc.GetErrorOffset(),
                          rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return DecodeJsonValue(doc, options);
}

namespace {
std::string_view StringMember(const JsonValue& v, const char* name) {
  auto it = v.FindMember(name);
  if (it == v.MemberEnd() || !it->value.IsString()) return {};
  return std::string_view(it->value.GetString(), it->value.GetStringLength());
}
}  // namespace

Result<Decoded> DecodeJsonValue(const JsonValue& value, const DecodeOptions& options) {
  if (!value.IsObject()) {
    return BadRequestError("expected a JSON object, got " + std::string(JsonTypeName(value)));
  }
  std::string_view api_version = StringMember(value, "apiVersion");
  std::string_view kind = StringMember(value, "kind");
  const TypeInfo* type = options.expected;
  if (type) {
    const Scheme& scheme = options.scheme ? *options.scheme : Scheme::Default();
    const std::string_view data_version = api_version.empty() ? type->api_version : api_version;
    if (!kind.empty() && kind != type->kind && scheme.Find(data_version, kind)) {
      // Another kind Kubernetes knows: its scheme finds no conversion into the expected one.
      const size_t slash = data_version.rfind('/');
      const std::string version(slash == std::string_view::npos ? data_version
                                                                 : data_version.substr(slash + 1));
      const std::string internal =
          type->group.empty() ? "core" : type->group.substr(0, type->group.find('.'));
      return BadRequestError(std::string(kind) + " in version \"" + version +
                             "\" cannot be handled as a " + type->kind + ": converting (" +
                             version + "." + std::string(kind) + ") to (" + internal + "." +
                             type->kind + "): unknown conversion");
    }
    if (!api_version.empty() && api_version != type->api_version) {
      return BadRequestError("the API version in the data (" + std::string(api_version) +
                             ") does not match the expected API version (" + type->api_version +
                             ")");
    }
    if (!kind.empty() && kind != type->kind) {
      return BadRequestError("the kind in the data (" + std::string(kind) +
                             ") does not match the expected kind (" + type->kind + ")");
    }
  } else {
    if (kind.empty()) return BadRequestError("Object 'Kind' is missing in the document");
    if (api_version.empty())
      return BadRequestError("Object 'apiVersion' is missing in the document");
    const Scheme& scheme = options.scheme ? *options.scheme : Scheme::Default();
    type = scheme.Find(api_version, kind);
    if (!type) {
      return BadRequestError("no kind \"" + std::string(kind) + "\" is registered for version \"" +
                             std::string(api_version) + "\"");
    }
  }
  Decoded out;
  out.object = type->make();
  DecodeContext ctx(options.strict);
  if (!type->decode(value, *out.object, ctx)) {
    return BadRequestError(type->kind + " in version \"" + type->version +
                           "\" cannot be handled as a " + type->kind + ": " + ctx.error());
  }
  std::vector<std::string> problems;
  for (const auto& f : ctx.unknown_fields()) problems.push_back("unknown field \"" + f + "\"");
  for (const auto& f : ctx.duplicate_fields()) problems.push_back("duplicate field \"" + f + "\"");
  if (options.strict && !problems.empty()) {
    std::string msg = "strict decoding error: ";
    for (size_t i = 0; i < problems.size(); ++i) {
      if (i) msg += ", ";
      msg += problems[i];
    }
    return BadRequestError(msg);
  }
  out.warnings = std::move(problems);
  return out;
}

// --- Scheme -----------------------------------------------------------------------------------

const Scheme& Scheme::Default() {
  static const Scheme* scheme = [] {
    auto* s = new Scheme();
    RegisterBuiltinTypes(*s);
    return s;
  }();
  return *scheme;
}

void Scheme::Add(const TypeInfo& type) { types_.push_back(&type); }

const TypeInfo* Scheme::Find(std::string_view api_version, std::string_view kind) const {
  for (const TypeInfo* t : types_) {
    if (t->api_version == api_version && t->kind == kind) return t;
  }
  return nullptr;
}

}  // namespace allot::api
