#include "api/codec/protobuf_reflect.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>

#include "api/codec/codec.h"

namespace allot::api::protobuf {

namespace {

constexpr int64_t kMicrosPerSecond = 1000000;

// Reads the seconds (1) and nanos (2) of a meta.v1 Time or MicroTime message.
bool ReadTimestamp(const Record& r, int64_t& seconds, int64_t& nanos, DecodeState& s) {
  if (r.type != kLengthDelimited) return WrongType(r, s);
  seconds = 0;
  nanos = 0;
  Reader reader(r.bytes);
  Record f;
  while (reader.Next(f)) {
    if (f.type != kVarint) continue;
    if (f.number == 1) seconds = static_cast<int64_t>(f.value);
    if (f.number == 2) nanos = static_cast<int32_t>(f.value);
  }
  if (!reader.ok()) return Malformed(s);
  if (nanos < 0 || nanos >= 1000000000) return s.ctx.ValueError("nanos out of range");
  // Time holds microseconds since the epoch in an int64: about ±292,000 years.
  constexpr int64_t kLimit = INT64_MAX / kMicrosPerSecond - 1;
  if (seconds > kLimit || seconds < -kLimit) return s.ctx.ValueError("seconds out of range");
  return true;
}

void WriteTimestamp(Writer& w, int number, int64_t seconds, int64_t nanos) {
  size_t mark = w.BeginNested(number);
  w.IntField(1, seconds);  // even 0: an empty message is Go's zero time, not the epoch
  if (nanos != 0) w.IntField(2, nanos);
  w.EndNested(mark, false);
}

// The bytes field 1 of the message `r`: Quantity {string = 1}, RawExtension {raw = 1}.
bool ReadOnlyBytes(const Record& r, std::string_view& out, DecodeState& s) {
  if (r.type != kLengthDelimited) return WrongType(r, s);
  Reader reader(r.bytes);
  Record f;
  while (reader.Next(f)) {
    if (f.number == 1 && f.type == kLengthDelimited) out = f.bytes;
  }
  return reader.ok() || Malformed(s);
}

// Floor division, so times before the epoch split into whole seconds and a positive remainder.
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

bool WrongType(const Record& r, DecodeState& s) {
  return s.ctx.ValueError("wire type " + std::to_string(r.type) + " does not fit this field");
}

bool Malformed(DecodeState& s) { return s.ctx.ValueError("malformed protobuf"); }

bool IsZeroMessage(std::string_view bytes, int depth) {
  if (depth > 32) return false;
  Reader reader(bytes);
  Record r;
  while (reader.Next(r)) {
    const bool zero = r.type == kLengthDelimited
                          ? r.bytes.empty() || IsZeroMessage(r.bytes, depth + 1)
                          : r.value == 0;
    if (!zero) return false;
  }
  return reader.ok();
}

void WriteTime(Writer& w, int number, const Time& v) {
  // metav1.Time travels in whole seconds, as its JSON form does.
  WriteTimestamp(w, number, FloorDiv(v.unix_micros, kMicrosPerSecond), 0);
}

void WriteMicroTime(Writer& w, int number, const MicroTime& v) {
  const int64_t seconds = FloorDiv(v.time.unix_micros, kMicrosPerSecond);
  WriteTimestamp(w, number, seconds, (v.time.unix_micros - seconds * kMicrosPerSecond) * 1000);
}

bool ReadTime(const Record& r, Time& out, DecodeState& s) {
  int64_t seconds = 0, nanos = 0;
  if (!ReadTimestamp(r, seconds, nanos, s)) return false;
  out = Time::FromUnixSeconds(seconds);
  return true;
}

bool ReadMicroTime(const Record& r, MicroTime& out, DecodeState& s) {
  int64_t seconds = 0, nanos = 0;
  if (!ReadTimestamp(r, seconds, nanos, s)) return false;
  out.time = Time{seconds * kMicrosPerSecond + nanos / 1000};
  return true;
}

bool ReadDuration(const Record& r, Duration& out, DecodeState& s) {
  if (r.type != kLengthDelimited) return WrongType(r, s);
  out.nanos = 0;
  Reader reader(r.bytes);
  Record f;
  while (reader.Next(f)) {
    if (f.number == 1 && f.type == kVarint) out.nanos = static_cast<int64_t>(f.value);
  }
  return reader.ok() || Malformed(s);
}

void WriteQuantity(Writer& w, int number, const Quantity& v) {
  size_t mark = w.BeginNested(number);
  w.BytesField(1, v.ToString());
  w.EndNested(mark, false);
}

bool ReadQuantity(const Record& r, Quantity& out, DecodeState& s) {
  std::string_view text;
  if (!ReadOnlyBytes(r, text, s)) return false;
  if (text.empty()) text = "0";  // Go's zero Quantity
  auto q = Quantity::Parse(text);
  if (!q.ok()) return s.ctx.ValueError(q.status().message());
  out = *q;
  return true;
}

bool WriteIntOrString(Writer& w, int number, const IntOrString& v) {
  if (!v.is_string && (v.int_value < INT32_MIN || v.int_value > INT32_MAX)) return false;
  size_t mark = w.BeginNested(number);
  if (v.is_string) {
    w.VarintField(1, 1);
    if (!v.string_value.empty()) w.BytesField(3, v.string_value);
  } else if (v.int_value != 0) {
    w.IntField(2, v.int_value);
  }
  w.EndNested(mark, false);
  return true;
}

bool ReadIntOrString(const Record& r, IntOrString& out, DecodeState& s) {
  if (r.type != kLengthDelimited) return WrongType(r, s);
  out = IntOrString{};
  Reader reader(r.bytes);
  Record f;
  while (reader.Next(f)) {
    if (f.number == 1 && f.type == kVarint) out.is_string = f.value == 1;
    if (f.number == 2 && f.type == kVarint) out.int_value = static_cast<int32_t>(f.value);
    if (f.number == 3 && f.type == kLengthDelimited) out.string_value.assign(f.bytes);
  }
  if (!out.is_string) out.string_value.clear();
  return reader.ok() || Malformed(s);
}

bool ReadRawExtension(const Record& r, RawJson& out, DecodeState& s) {
  std::string_view raw;
  if (!ReadOnlyBytes(r, raw, s)) return false;
  out.json.clear();
  if (raw.empty()) return true;
  if (Status depth = CheckJsonDepth(raw); !depth.ok()) return s.ctx.ValueError(depth.message());
  rapidjson::Document doc;
  doc.Parse(raw.data(), raw.size());
  if (doc.HasParseError()) {
    return s.ctx.ValueError("raw is not JSON (offset " + std::to_string(doc.GetErrorOffset()) +
                            ")");
  }
  rapidjson::StringBuffer buf;
  JsonWriter jw(buf);
  doc.Accept(jw);
  out.json.assign(buf.GetString(), buf.GetSize());
  return true;
}

}  // namespace allot::api::protobuf
