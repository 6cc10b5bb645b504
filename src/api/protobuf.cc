#include "api/protobuf.h"

#include <array>

#include "api/codec/protobuf_reflect.h"
#include "api/apps/protobuf_messages.h"
#include "api/core/protobuf_messages_config.h"
#include "api/core/protobuf_messages_node.h"
#include "api/core/protobuf_messages_pod.h"
#include "api/core/types.h"
#include "api/machinery/protobuf_messages.h"
#include "api/policy/pod_disruption_budget.h"
#include "api/policy/protobuf_messages.h"
#include "api/resource/protobuf_messages.h"
#include "api/scheduling/priority_class.h"
#include "api/scheduling/protobuf_messages.h"
#include "api/storage/protobuf_messages.h"

namespace allot::api {

namespace {

// meta.v1 Status, StatusDetails and StatusCause, as the codec reads and writes them.
struct WireCause {
  std::string reason, message, field;
  template <class V>
  void Visit(V& v) {
    v("reason", reason);
    v("message", message);
    v("field", field);
  }
};
struct WireDetails {
  std::string name, group, kind, uid;
  std::vector<WireCause> causes;
  int32_t retryAfterSeconds = 0;
  template <class V>
  void Visit(V& v) {
    v("name", name);
    v("group", group);
    v("kind", kind);
    v("uid", uid);
    v("causes", causes);
    v("retryAfterSeconds", retryAfterSeconds);
  }
};
struct WireStatus {
  ListMeta metadata;
  std::string status, message, reason;
  WireDetails details;
  int32_t code = 0;
  template <class V>
  void Visit(V& v) {
    v("metadata", metadata);
    v("status", status);
    v("message", message);
    v("reason", reason);
    v("details", details);
    v("code", code);
  }
};

}  // namespace

template <>
struct ProtoMessage<WireCause> {
  static constexpr ProtoField kFields[] = {{"reason", 1}, {"message", 2}, {"field", 3}};
};
template <>
struct ProtoMessage<WireDetails> {
  static constexpr ProtoField kFields[] = {{"name", 1},   {"group", 2}, {"kind", 3},
                                           {"causes", 4}, {"uid", 6},   {"retryAfterSeconds", 5}};
};
template <>
struct ProtoMessage<WireStatus> {
  static constexpr ProtoField kFields[] = {{"metadata", 1}, {"status", 2},  {"message", 3},
                                           {"reason", 4},   {"details", 5}, {"code", 6}};
};

namespace {

using protobuf::DecodeState;
using protobuf::Reader;
using protobuf::Record;
using protobuf::Writer;

constexpr std::string_view kMagic("k8s\0", 4);

// What the kinds with protobuf share: their message's encoder and decoder.
struct KindCodec {
  const TypeInfo& (*type)();
  bool (*encode)(const Object&, Writer&);
  bool (*decode)(std::string_view, Object&, DecodeState&);
  bool (*may_refuse)();
  bool (*normalize)(Object&, DecodeContext&);
  bool (*has_json_message_defaults)();
  void (*default_json_messages)(Object&);
};

template <class T>
constexpr KindCodec CodecOf() {
  return {
      &T::Type,
      [](const Object& o, Writer& w) { return protobuf::WriteFields(w, static_cast<const T&>(o)); },
      [](std::string_view raw, Object& o, DecodeState& s) {
        return protobuf::ReadFields(raw, static_cast<T&>(o), s);
      },
      [] {
        static const bool may_refuse = protobuf::HasOpaque<T>();
        return may_refuse;
      },
      [](Object& o, DecodeContext& ctx) {
        return protobuf::NormalizeJsonMessages(static_cast<T&>(o), ctx);
      },
      [] {
        static const bool has = protobuf::HasJsonMessageDefaults<T>();
        return has;
      },
      [](Object& o) { protobuf::DefaultJsonMessages(static_cast<T&>(o)); }};
}

// The kinds the scheduler, controllers, node agents and drivers exchange.
constexpr std::array kKinds = {
    CodecOf<Pod>(),
    CodecOf<Binding>(),
    CodecOf<Node>(),
    CodecOf<Namespace>(),
    CodecOf<Event>(),
    CodecOf<Lease>(),
    CodecOf<DeviceClass>(),
    CodecOf<ResourceClaim>(),
    CodecOf<ResourceClaimTemplate>(),
    CodecOf<ResourceSlice>(),
    CodecOf<PodSchedulingContext>(),
    CodecOf<PriorityClass>(),
    CodecOf<PodDisruptionBudget>(),
    CodecOf<ConfigMap>(),
    CodecOf<Secret>(),
    CodecOf<ServiceAccount>(),
    CodecOf<Service>(),
    CodecOf<PersistentVolume>(),
    CodecOf<PersistentVolumeClaim>(),
    CodecOf<ReplicationController>(),
    CodecOf<ReplicaSet>(),
    CodecOf<StatefulSet>(),
    CodecOf<StorageClass>(),
    CodecOf<CSIDriver>(),
    CodecOf<CSINode>(),
    CodecOf<CSIStorageCapacity>(),
    CodecOf<VolumeAttachment>(),
    CodecOf<DeviceTaintRule>(),
};

const KindCodec* CodecFor(const TypeInfo& type) {
  for (const KindCodec& k : kKinds) {
    if (&k.type() == &type) return &k;
  }
  return nullptr;
}

Status DecodeError(const DecodeState& s, std::string_view what) {
  const std::string message = "protobuf " + std::string(what) + ": " + s.ctx.error();
  if (s.unsupported) return Status(StatusCode::kUnsupportedMediaType, message);
  return BadRequestError(message);
}

void WriteTypeMeta(Writer& w, std::string_view api_version, std::string_view kind) {
  size_t mark = w.BeginNested(1);
  w.BytesField(1, api_version);
  w.BytesField(2, kind);
  w.EndNested(mark, false);
}

void AppendEnvelope(std::string_view api_version, std::string_view kind, std::string_view message,
                    std::string& out) {
  out.reserve(out.size() + message.size() + api_version.size() + kind.size() + 16);
  out.append(kMagic);
  Writer w(out);
  WriteTypeMeta(w, api_version, kind);
  w.BytesField(2, message);
}

}  // namespace

bool HasProtobuf(const TypeInfo& type) { return CodecFor(type) != nullptr; }

bool ProtobufMayRefuse(const TypeInfo& type) {
  const KindCodec* codec = CodecFor(type);
  return codec && codec->may_refuse();
}

bool NormalizeJsonMessages(Object& obj, DecodeContext& ctx) {
  const KindCodec* codec = CodecFor(obj.type());
  return !codec || codec->normalize(obj, ctx);
}

JsonMessageDefaulter JsonMessageDefaulterFor(const TypeInfo& type) {
  const KindCodec* codec = CodecFor(type);
  return codec && codec->has_json_message_defaults() ? codec->default_json_messages : nullptr;
}

bool EncodeProtobufMessage(const Object& obj, std::string& out) {
  const KindCodec* codec = CodecFor(obj.type());
  if (!codec) return false;
  const size_t start = out.size();
  Writer w(out);
  if (codec->encode(obj, w)) return true;
  out.resize(start);
  return false;
}

void AppendProtobufEnvelope(const TypeInfo& type, std::string_view message, std::string& out) {
  AppendEnvelope(type.api_version, type.kind, message, out);
}

void AppendProtobufList(const TypeInfo& type, const ListMeta& meta,
                        const std::vector<std::string_view>& items, std::string& out) {
  size_t total = 96;
  for (std::string_view item : items) total += item.size() + 6;
  out.reserve(out.size() + total);
  // The list is written in place as the envelope's raw (one pass, no copy of the items' bytes
  // into a list first).
  out.append(kMagic);
  Writer w(out);
  WriteTypeMeta(w, type.api_version, type.kind + "List");
  const size_t raw = w.BeginNested(2);
  const size_t list_meta = w.BeginNested(1);
  protobuf::WriteFields(w, meta);
  w.EndNested(list_meta, false);
  for (std::string_view item : items) w.BytesField(2, item);
  w.EndNested(raw, false);
}

void AppendProtobufWatchFrame(std::string_view type, std::string_view object, std::string& out) {
  std::string event;
  event.reserve(object.size() + type.size() + 16);
  Writer w(event);
  w.BytesField(1, type);
  size_t mark = w.BeginNested(2);
  w.BytesField(1, object);
  w.EndNested(mark, false);
  const auto size = static_cast<uint32_t>(event.size());
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(size >> shift));
  out.append(event);
}

void AppendProtobufStatus(const Status& status, std::string& out) {
  WireStatus wire;
  wire.status = status.ok() ? "Success" : "Failure";
  wire.message = status.message();
  if (!status.ok()) {
    wire.reason = ReasonString(status.code());
    wire.code = HttpCode(status.code());
  }
  const StatusDetails& d = status.details();
  wire.details = {d.name, d.group, d.kind, d.uid, {}, d.retry_after_seconds};
  for (const StatusCause& c : d.causes)
    wire.details.causes.push_back({c.reason, c.message, c.field});
  std::string message;
  Writer w(message);
  protobuf::WriteFields(w, wire);
  AppendEnvelope("v1", "Status", message, out);
}

// --- reading -------------------------------------------------------------------------------------

Result<ProtobufEnvelope> ParseProtobufEnvelope(std::string_view body) {
  if (body.substr(0, kMagic.size()) != kMagic) {
    return BadRequestError("protobuf: the body does not start with the \"k8s\\0\" prefix");
  }
  ProtobufEnvelope env;
  Reader unknown(body.substr(kMagic.size()));
  Record r;
  while (unknown.Next(r)) {
    if (r.type != protobuf::kLengthDelimited) continue;
    if (r.number == 2) env.raw = r.bytes;
    if (r.number != 1) continue;
    Reader type_meta(r.bytes);
    Record t;
    while (type_meta.Next(t)) {
      if (t.type != protobuf::kLengthDelimited) continue;
      if (t.number == 1) env.api_version = t.bytes;
      if (t.number == 2) env.kind = t.bytes;
    }
    if (!type_meta.ok()) return BadRequestError("protobuf: malformed typeMeta");
  }
  if (!unknown.ok()) return BadRequestError("protobuf: malformed envelope");
  return env;
}

const TypeInfo* ProtobufKind(std::string_view api_version, std::string_view kind) {
  for (const KindCodec& k : kKinds) {
    const TypeInfo& t = k.type();
    if (t.api_version == api_version && t.kind == kind) return &t;
  }
  return nullptr;
}

Result<std::unique_ptr<Object>> DecodeProtobufMessage(const TypeInfo& type, std::string_view raw,
                                                      bool* dropped) {
  const KindCodec* codec = CodecFor(type);
  if (!codec) {
    return Status(StatusCode::kUnsupportedMediaType,
                  "protobuf is not served for " + type.api_version + " " + type.kind);
  }
  std::unique_ptr<Object> obj = type.make();
  DecodeState s;
  s.lenient = dropped != nullptr;
  if (!codec->decode(raw, *obj, s)) return DecodeError(s, type.kind);
  s.Finish();
  if (dropped) *dropped = *dropped || s.dropped;
  return obj;
}

Result<std::unique_ptr<Object>> DecodeProtobufObject(const TypeInfo& type, std::string_view body,
                                                     bool* dropped) {
  ALLOT_ASSIGN_OR_RETURN(ProtobufEnvelope env, ParseProtobufEnvelope(body));
  if ((!env.kind.empty() && env.kind != type.kind) ||
      (!env.api_version.empty() && env.api_version != type.api_version)) {
    return BadRequestError("protobuf: the body holds " + std::string(env.api_version) + " " +
                           std::string(env.kind) + ", not " + type.api_version + " " + type.kind);
  }
  return DecodeProtobufMessage(type, env.raw, dropped);
}

Result<ProtobufList> DecodeProtobufList(const TypeInfo& type, std::string_view body,
                                        bool* dropped) {
  ALLOT_ASSIGN_OR_RETURN(ProtobufEnvelope env, ParseProtobufEnvelope(body));
  if (env.kind != type.kind + "List") {
    return BadRequestError("protobuf: expected a " + type.kind + "List, got " +
                           std::string(env.kind));
  }
  ProtobufList list;
  Reader reader(env.raw);
  Record r;
  while (reader.Next(r)) {
    if (r.type != protobuf::kLengthDelimited) continue;
    if (r.number == 1) {
      DecodeState s;
      if (!protobuf::ReadFields(r.bytes, list.meta, s)) return DecodeError(s, "ListMeta");
      s.Finish();
    } else if (r.number == 2) {
      ALLOT_ASSIGN_OR_RETURN(auto item, DecodeProtobufMessage(type, r.bytes, dropped));
      list.items.push_back(std::move(item));
    }
  }
  if (!reader.ok()) return BadRequestError("protobuf: malformed " + type.kind + "List");
  return list;
}

Result<ProtobufWatchEvent> ParseProtobufWatchEvent(std::string_view frame) {
  ProtobufWatchEvent ev;
  Reader reader(frame);
  Record r;
  while (reader.Next(r)) {
    if (r.type != protobuf::kLengthDelimited) continue;
    if (r.number == 1) ev.type = r.bytes;
    if (r.number != 2) continue;
    Reader raw(r.bytes);
    Record o;
    while (raw.Next(o)) {
      if (o.number == 1 && o.type == protobuf::kLengthDelimited) ev.object = o.bytes;
    }
    if (!raw.ok()) return BadRequestError("protobuf: malformed watch event object");
  }
  if (!reader.ok()) return BadRequestError("protobuf: malformed watch event");
  return ev;
}

Result<ProtobufStatus> DecodeProtobufStatus(std::string_view body) {
  ALLOT_ASSIGN_OR_RETURN(ProtobufEnvelope env, ParseProtobufEnvelope(body));
  if (env.kind != "Status") {
    return BadRequestError("protobuf: expected a Status, got " + std::string(env.kind));
  }
  WireStatus wire;
  DecodeState s;
  if (!protobuf::ReadFields(env.raw, wire, s)) return DecodeError(s, "Status");
  s.Finish();
  ProtobufStatus out{
      std::move(wire.status), std::move(wire.message), std::move(wire.reason), wire.code, {}};
  StatusDetails& d = out.details;
  d.name = std::move(wire.details.name);
  d.group = std::move(wire.details.group);
  d.kind = std::move(wire.details.kind);
  d.uid = std::move(wire.details.uid);
  d.retry_after_seconds = wire.details.retryAfterSeconds;
  for (WireCause& c : wire.details.causes) {
    d.causes.push_back({std::move(c.reason), std::move(c.message), std::move(c.field)});
  }
  return out;
}

}  // namespace allot::api
