#include "apiserver/encoding/output.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "api/codec/codec.h"
#include "api/machinery/reflect.h"
#include "api/protobuf.h"
#include "apiserver/encoding/status_json.h"

namespace allot::apiserver {

namespace {

using api::JsonWriter;

void Raw(JsonWriter& w, const std::string& json) {
  w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
}

void KindHeader(JsonWriter& w, std::string_view kind, std::string_view api_version) {
  w.Key("kind");
  api::WriteString(w, kind);
  w.Key("apiVersion");
  api::WriteString(w, api_version);
}

void ListMeta(JsonWriter& w, const Page& page) {
  w.Key("metadata");
  w.StartObject();
  if (!page.resource_version.empty()) {
    w.Key("resourceVersion");
    api::WriteString(w, page.resource_version);
  }
  if (!page.continue_token.empty()) {
    w.Key("continue");
    api::WriteString(w, page.continue_token);
    if (page.remaining_item_count >= 0) {
      w.Key("remainingItemCount");
      w.Int64(page.remaining_item_count);
    }
  }
  w.EndObject();
}

void WritePartialMetadata(JsonWriter& w, const api::Object& obj) {
  w.StartObject();
  KindHeader(w, "PartialObjectMetadata", "meta.k8s.io/v1");
  w.Key("metadata");
  api::reflect::Codec<api::ObjectMeta>::Encode(w, obj.metadata);
  w.EndObject();
}

std::string Finish(const rapidjson::StringBuffer& buf) {
  return std::string(buf.GetString(), buf.GetSize());
}

// --- tables -----------------------------------------------------------------------------------

void Column(JsonWriter& w, std::string_view name, std::string_view type, std::string_view format,
            std::string_view description, int priority) {
  w.StartObject();
  w.Key("name");
  api::WriteString(w, name);
  w.Key("type");
  api::WriteString(w, type);
  w.Key("format");
  api::WriteString(w, format);
  w.Key("description");
  api::WriteString(w, description);
  w.Key("priority");
  w.Int(priority);
  w.EndObject();
}

void Columns(JsonWriter& w, const api::ResourceInfo& r) {
  w.Key("columnDefinitions");
  w.StartArray();
  if (r.leading_name_column) {
    Column(w, "Name", "string", "name",
           "Name must be unique within a namespace. Is required when creating resources, although "
           "some resources may allow a client to request the generation of an appropriate name "
           "automatically.",
           0);
  }
  if (r.columns.empty()) {
    Column(w, "Created At", "date", "",
           "CreationTimestamp is a timestamp representing the server time when this object was "
           "created.",
           0);
  }
  for (const api::TableColumn& c : r.columns) {
    Column(w, c.name, c.type, c.format, c.description, c.priority);
  }
  w.EndArray();
}

void Cells(JsonWriter& w, const api::ResourceInfo& r, const api::Object& obj, Time now) {
  w.Key("cells");
  w.StartArray();
  if (r.leading_name_column) api::WriteString(w, obj.metadata.name);
  if (r.columns.empty()) {
    if (obj.metadata.creationTimestamp) {
      api::WriteString(w, obj.metadata.creationTimestamp->ToRfc3339());
    } else {
      w.Null();
    }
  } else {
    std::vector<api::TableCell> cells;
    if (r.row) cells = r.row(obj, now);
    cells.resize(r.columns.size(), std::string());
    for (const api::TableCell& c : cells) {
      if (const auto* s = std::get_if<std::string>(&c)) {
        api::WriteString(w, *s);
      } else {
        w.Int64(std::get<int64_t>(c));
      }
    }
  }
  w.EndArray();
}

void Row(JsonWriter& w, const api::ResourceInfo& r, const api::ObjectPtr& obj, Time now,
         const TableOptions& options, EncodeCache& cache) {
  w.StartObject();
  Cells(w, r, *obj, now);
  switch (options.include_object) {
    case IncludeObject::kMetadata:
      w.Key("object");
      WritePartialMetadata(w, *obj);
      break;
    case IncludeObject::kObject:
      w.Key("object");
      Raw(w, *cache.Encode(obj));
      break;
    case IncludeObject::kNone:
      break;
  }
  w.EndObject();
}

}  // namespace

std::string ListKind(const api::ResourceInfo& r) { return r.type->kind + "List"; }

std::string PartialMetadataJson(const api::Object& obj) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  WritePartialMetadata(w, obj);
  return Finish(buf);
}

std::string ListJson(const api::ResourceInfo& r, const Page& page, EncodeCache& cache) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  KindHeader(w, ListKind(r), r.type->api_version);
  ListMeta(w, page);
  w.Key("items");
  w.StartArray();
  for (const api::ObjectPtr& obj : *page.items) Raw(w, *cache.Encode(obj));
  w.EndArray();
  w.EndObject();
  return Finish(buf);
}

std::string PartialMetadataListJson(const Page& page) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  KindHeader(w, "PartialObjectMetadataList", "meta.k8s.io/v1");
  ListMeta(w, page);
  w.Key("items");
  w.StartArray();
  for (const api::ObjectPtr& obj : *page.items) WritePartialMetadata(w, *obj);
  w.EndArray();
  w.EndObject();
  return Finish(buf);
}

std::string TableJson(const api::ResourceInfo& r, const Page& page, Time now,
                      const TableOptions& options, EncodeCache& cache) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  KindHeader(w, "Table", options.api_version);
  ListMeta(w, page);
  if (options.with_columns) Columns(w, r);
  w.Key("rows");
  w.StartArray();
  for (const api::ObjectPtr& obj : *page.items) Row(w, r, obj, now, options, cache);
  w.EndArray();
  w.EndObject();
  return Finish(buf);
}

std::optional<std::string> ProtobufObject(const api::ObjectPtr& obj, EncodeCache& cache) {
  auto message = cache.EncodeProtobuf(obj);
  if (!message) return std::nullopt;
  std::string out;
  // A served version of the stored shape names its own version in the envelope.
  api::AppendProtobufEnvelope(cache.served() ? cache.served()->view_type : obj->type(), *message,
                              out);
  return out;
}

std::optional<std::string> ProtobufList(const api::ResourceInfo& r, const Page& page,
                                        EncodeCache& cache) {
  if (!api::HasProtobuf(cache.served() ? *cache.served()->storage->type : *r.type)) {
    return std::nullopt;
  }
  std::vector<std::shared_ptr<const std::string>> held;
  std::vector<std::string_view> items;
  held.reserve(page.items->size());
  items.reserve(page.items->size());
  for (const api::ObjectPtr& obj : *page.items) {
    auto message = cache.EncodeProtobuf(obj);
    if (!message) return std::nullopt;
    items.emplace_back(*message);
    held.push_back(std::move(message));
  }
  api::ListMeta meta;
  meta.resourceVersion = page.resource_version;
  meta.continue_ = page.continue_token;
  if (!page.continue_token.empty() && page.remaining_item_count >= 0) {
    meta.remainingItemCount = page.remaining_item_count;
  }
  std::string out;
  api::AppendProtobufList(*r.type, meta, items, out);
  return out;
}

Output WriteOutput(const Request& req) {
  auto out = NegotiateOutput(req);
  if (!out.ok()) return Output{};
  out->json_acceptable = true;  // as before: JSON to any Accept
  return *out;
}

Response ObjectResponse(int code, const api::ObjectPtr& obj, const Output& out,
                        EncodeCache& cache) {
  if (out.protobuf) {
    if (auto body = ProtobufObject(obj, cache)) {
      Response res = JsonResponse(code, std::move(*body));
      res.content_type = std::string(api::kProtobufContentType);
      return res;
    }
    if (!out.json_acceptable) {
      return ErrorResponse(NotAcceptableError(api::kProtobufContentType));
    }
  }
  return JsonResponse(code, cache.EncodeOnce(*obj));
}

std::string ObjectOutputJson(const api::ResourceInfo& r, const api::ObjectPtr& obj,
                             const Output& out, Time now, EncodeCache& cache, bool with_columns) {
  switch (out.kind) {
    case OutputKind::kObject:
      return cache.EncodeOnce(*obj);
    case OutputKind::kPartialMetadata:
      return PartialMetadataJson(*obj);
    case OutputKind::kTable: {
      std::vector<api::ObjectPtr> items = {obj};
      Page page;
      page.items = &items;
      page.resource_version = obj->metadata.resourceVersion;
      TableOptions options;
      options.include_object = out.include_object;
      options.api_version = "meta.k8s.io/" + out.table_version;
      options.with_columns = with_columns;
      return TableJson(r, page, now, options, cache);
    }
  }
  return cache.EncodeOnce(*obj);
}

}  // namespace allot::apiserver
