#include "scheduler/framework/pod_status_patch.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace allot::scheduler {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void String(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

}  // namespace

std::string PodStatusPatch(const PodConditionChange* condition,
                           const std::optional<std::string>& nominated) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("status");
  w.StartObject();
  if (condition) {
    w.Key("conditions");
    w.StartArray();
    w.StartObject();
    w.Key("type");
    String(w, condition->type);
    w.Key("status");
    String(w, condition->status);
    w.Key("lastProbeTime");
    w.Null();
    w.Key("lastTransitionTime");
    String(w, condition->last_transition_time);
    w.Key("reason");
    String(w, condition->reason);
    w.Key("message");
    String(w, condition->message);
    w.EndObject();
    w.EndArray();
  }
  if (nominated) {
    w.Key("nominatedNodeName");
    if (nominated->empty()) {
      w.Null();
    } else {
      String(w, *nominated);
    }
  }
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace allot::scheduler
