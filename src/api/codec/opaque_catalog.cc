#include "api/codec/opaque_catalog.h"

#include <rapidjson/document.h>

#include <utility>

namespace allot::api::protobuf {

extern const unsigned char kOpaqueMessagesData[];
extern const unsigned long kOpaqueMessagesDataSize;

namespace {

using Kind = OpaqueKind;
using Shape = OpaqueShape;
using Presence = OpaquePresence;
using FieldSpec = OpaqueField;

constexpr std::string_view kPullPolicyOf = "@pullPolicyOf:";

bool ParseKind(std::string_view t, FieldSpec& f) {
  static const std::pair<std::string_view, Kind> kScalars[] = {
      {"string", Kind::kString},           {"bytes", Kind::kBytes},
      {"bool", Kind::kBool},               {"int32", Kind::kInt32},
      {"int64", Kind::kInt64},             {"double", Kind::kDouble},
      {"quantity", Kind::kQuantity},       {"intorstring", Kind::kIntOrString},
      {"time", Kind::kTime},               {"microtime", Kind::kMicroTime},
      {"duration", Kind::kDuration},       {"rawextension", Kind::kRawExtension}};
  if (t.starts_with("[]")) {
    f.shape = Shape::kRepeated;
    t.remove_prefix(2);
  } else if (t.starts_with("map[string]")) {
    f.shape = Shape::kMap;
    t.remove_prefix(11);
  }
  for (const auto& [name, kind] : kScalars) {
    if (t == name) {
      f.kind = kind;
      return true;
    }
  }
  if (t.find('.') == std::string_view::npos) return false;
  f.kind = Kind::kMessage;
  f.message_name = std::string(t);
  return true;
}

bool ParsePresence(std::string_view p, Presence& out) {
  if (p == "always") out = Presence::kAlways;
  else if (p == "omitempty") out = Presence::kOmitEmpty;
  else if (p == "omitzero") out = Presence::kOmitZero;
  else if (p == "pointer") out = Presence::kPointer;
  else if (p == "inline") out = Presence::kInline;
  else return false;
  return true;
}

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    size_t tab = line.find('\t');
    out.push_back(line.substr(0, tab));
    if (tab == std::string_view::npos) return out;
    line.remove_prefix(tab + 1);
  }
}

// The sixth column: a JSON value of the field's own type, or a pull policy rule naming a string
// field of the same message (checked once the catalog is whole).
bool ParseDefault(std::string_view text, FieldSpec& f) {
  if (f.shape != Shape::kSingle || f.presence == Presence::kInline) return false;
  if (text.starts_with(kPullPolicyOf)) {
    text.remove_prefix(kPullPolicyOf.size());
    f.pull_policy_of = std::string(text);
    return !f.pull_policy_of.empty() && f.kind == Kind::kString;
  }
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError()) return false;
  bool fits = (f.kind == Kind::kString && doc.IsString()) ||
              (f.kind == Kind::kBool && doc.IsBool()) ||
              (f.kind == Kind::kInt32 && doc.IsInt()) || (f.kind == Kind::kInt64 && doc.IsInt64());
  if (fits) f.default_json = std::string(text);
  return fits;
}

// Whether `m`, or a message it holds, has a default; `visiting` breaks cycles.
bool HasDefaults(const OpaqueMessage& m, std::vector<const OpaqueMessage*>& visiting) {
  for (const OpaqueMessage* v : visiting) {
    if (v == &m) return false;
  }
  visiting.push_back(&m);
  bool any = false;
  for (const FieldSpec& f : m.fields) {
    any = any || !f.default_json.empty() || !f.pull_policy_of.empty() ||
          (f.message && HasDefaults(*f.message, visiting));
  }
  visiting.pop_back();
  return any;
}

void MarkDefaults(OpaqueCatalog& c) {
  for (auto& [name, m] : c.messages) {
    std::vector<const OpaqueMessage*> visiting;
    m.has_defaults = HasDefaults(m, visiting);
    for (const FieldSpec& f : m.fields) {
      if (f.pull_policy_of.empty()) continue;
      bool found = false;
      for (const FieldSpec& g : m.fields) {
        found = found || (g.json == f.pull_policy_of && g.kind == Kind::kString);
      }
      if (!found) {
        c.problems.push_back(name + "." + f.json + ": no string field " + f.pull_policy_of);
      }
    }
  }
}

}  // namespace

OpaqueCatalog ParseOpaqueCatalog(std::string_view data) {
  OpaqueCatalog c;
  while (!data.empty()) {
    size_t end = data.find('\n');
    std::string_view line = data.substr(0, end);
    data = end == std::string_view::npos ? std::string_view() : data.substr(end + 1);
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> cols = SplitTabs(line);
    FieldSpec f;
    bool ok = (cols.size() == 5 || cols.size() == 6) && ParseKind(cols[3], f) &&
              ParsePresence(cols[4], f.presence) && (cols.size() == 5 || ParseDefault(cols[5], f));
    int number = 0;
    for (char ch : ok ? cols[1] : std::string_view()) {
      ok = ok && ch >= '0' && ch <= '9' && number < 100000;
      number = number * 10 + (ch - '0');
    }
    ok = ok && number > 0 &&
         (f.presence == Presence::kInline) == (cols[2] == "-") &&
         (f.presence != Presence::kInline ||
          (f.kind == Kind::kMessage && f.shape == Shape::kSingle));
    if (!ok) {
      c.problems.emplace_back(line);
      continue;
    }
    f.number = number;
    if (f.presence != Presence::kInline) f.json = std::string(cols[2]);
    OpaqueMessage& m = c.messages[std::string(cols[0])];
    m.name = std::string(cols[0]);
    m.fields.push_back(std::move(f));
  }
  for (auto& [name, m] : c.messages) {
    for (size_t i = 0; i < m.fields.size(); ++i) {
      FieldSpec& f = m.fields[i];
      if (f.kind == Kind::kMessage) {
        auto it = c.messages.find(f.message_name);
        if (it == c.messages.end()) {
          c.problems.push_back(name + ": no message " + f.message_name);
        } else {
          f.message = &it->second;
        }
      }
      if (m.by_number.size() <= static_cast<size_t>(f.number)) m.by_number.resize(f.number + 1, -1);
      if (m.by_number[f.number] >= 0) c.problems.push_back(name + ": number used twice");
      m.by_number[f.number] = static_cast<int>(i);
    }
  }
  MarkDefaults(c);
  return c;
}

const OpaqueCatalog& TheOpaqueCatalog() {
  static const OpaqueCatalog catalog = ParseOpaqueCatalog(
      {reinterpret_cast<const char*>(kOpaqueMessagesData), kOpaqueMessagesDataSize});
  return catalog;
}

}  // namespace allot::api::protobuf
