#include "api/koordinator/annotations.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

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
