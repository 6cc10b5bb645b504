#include "testing/objects.h"

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <cstdlib>

#include "api/codec/codec.h"

namespace allot::testing {

std::unique_ptr<api::Object> ObjectFromJson(std::string_view json) {
  auto r = api::DecodeJson(json, {});
  if (!r.ok()) {
    std::fprintf(stderr, "ObjectFromJson: %s\n%.*s\n", r.status().ToString().c_str(),
                 static_cast<int>(json.size()), json.data());
    std::abort();
  }
  return std::move(r->object);
}

std::unique_ptr<api::Object> PodManifest(std::string_view ns, std::string_view name,
                                         std::string_view extra_spec) {
  std::string json = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
                     R"(","namespace":")" + std::string(ns) +
                     R"("},"spec":{"containers":[{"name":"c","image":"busybox"}])";
  if (!extra_spec.empty()) json += "," + std::string(extra_spec);
  json += "}}";
  return ObjectFromJson(json);
}

std::unique_ptr<api::Object> MakeEvent(std::string_view ns, std::string_view name,
                                       std::string_view extra_fields) {
  std::string json = R"({"apiVersion":"v1","kind":"Event","metadata":{"name":")" +
                     std::string(name) + R"(","namespace":")" + std::string(ns) +
                     R"("},"involvedObject":{"kind":"Pod","namespace":")" + std::string(ns) +
                     R"(","name":"p"},"reason":"Scheduled","message":"Successfully assigned",)"
                     R"("count":1)";
  if (!extra_fields.empty()) json += "," + std::string(extra_fields);
  json += "}";
  return ObjectFromJson(json);
}

std::unique_ptr<api::Object> MakeReservation(std::string_view name, std::string_view spec_json,
                                             std::string_view labels_json) {
  return ObjectFromJson(R"({"apiVersion":"scheduling.koordinator.sh/v1alpha1",)"
                        R"("kind":"Reservation","metadata":{"name":")" +
                        std::string(name) + R"(","labels":)" + std::string(labels_json) +
                        R"(},"spec":)" + std::string(spec_json) + "}");
}

std::string JsonAt(const api::Object& obj, std::string_view pointer) {
  rapidjson::Document doc;
  std::string text = api::EncodeJson(obj);
  doc.Parse(text.c_str());
  const rapidjson::Value* v = rapidjson::Pointer(std::string(pointer).c_str()).Get(doc);
  if (!v) return "<missing>";
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v->Accept(w);
  return buf.GetString();
}

const api::ResourceInfo& Resource(std::string_view group, std::string_view resource) {
  for (const auto& r : api::ResourceRegistry::Default().All()) {
    if (r.group == group && r.resource == resource) return r;
  }
  std::fprintf(stderr, "no resource %.*s\n", static_cast<int>(resource.size()), resource.data());
  std::abort();
}

}  // namespace allot::testing
