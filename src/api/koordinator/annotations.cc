#include "api/koordinator/annotations.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "api/machinery/reflect.h"

namespace allot::api {

std::optional<ReservationAllocated> ParseReservationAllocated(std::string_view value) {
  rapidjson::Document d;
  d.Parse(value.data(), value.size());
  if (d.HasParseError() || !d.IsObject()) return std::nullopt;
  ReservationAllocated out;
  auto uid = d.FindMember("uid");
  if (uid == d.MemberEnd() || !uid->value.IsString() || uid->value.GetStringLength() == 0) {
    return std::nullopt;
  }
  out.uid.assign(uid->value.GetString(), uid->value.GetStringLength());
  if (auto name = d.FindMember("name"); name != d.MemberEnd() && name->value.IsString()) {
    out.name.assign(name->value.GetString(), name->value.GetStringLength());
  }
  return out;
}

namespace {

template <class T>
Result<T> ParseAnnotation(std::string_view key, std::string_view value) {
  T out;
  Status st = FromJson(value, out);
  if (!st.ok()) {
    return BadRequestError("annotation " + std::string(key) + ": " + st.message());
  }
  return out;
}

}  // namespace

Result<ReservationAffinity> ParseReservationAffinity(std::string_view value) {
  return ParseAnnotation<ReservationAffinity>(kAnnotationReservationAffinity, value);
}

Result<ExactMatchReservationSpec> ParseExactMatchReservation(std::string_view value) {
  return ParseAnnotation<ExactMatchReservationSpec>(kAnnotationExactMatchReservation, value);
}

Result<ReservationRestrictedOptions> ParseReservationRestrictedOptions(std::string_view value) {
  return ParseAnnotation<ReservationRestrictedOptions>(kAnnotationReservationRestrictedOptions,
                                                       value);
}

std::string FormatReservationAllocated(const ReservationAllocated& r) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("name");
  w.String(r.name.data(), static_cast<rapidjson::SizeType>(r.name.size()));
  w.Key("uid");
  w.String(r.uid.data(), static_cast<rapidjson::SizeType>(r.uid.size()));
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace allot::api
