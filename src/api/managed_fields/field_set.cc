#include "api/managed_fields/field_set.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <memory>

namespace allot::api::managed_fields {
namespace {

// Fields, then keys, then values, then indexes (the order structured-merge-diff writes them).
int Rank(std::string_view element) {
  switch (element.empty() ? '\0' : element[0]) {
    case 'f': return 0;
    case 'k': return 1;
    case 'v': return 2;
    case 'i': return 3;
    default: return 4;
  }
}

struct Node {
  bool member = false;
  std::map<std::string, std::unique_ptr<Node>> children;
};

void Write(const Node& node, rapidjson::Writer<rapidjson::StringBuffer>& w) {
  w.StartObject();
  if (node.member && !node.children.empty()) {
    w.Key(".");
    w.StartObject();
    w.EndObject();
  }
  std::vector<const std::pair<const std::string, std::unique_ptr<Node>>*> order;
  for (const auto& child : node.children) order.push_back(&child);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    int ra = Rank(a->first), rb = Rank(b->first);
    return ra != rb ? ra < rb : a->first < b->first;
  });
  for (const auto* child : order) {
    w.Key(child->first.data(), static_cast<rapidjson::SizeType>(child->first.size()));
    Write(*child->second, w);
  }
  w.EndObject();
}

Status Read(const rapidjson::Value& obj, FieldPath& prefix, FieldSet& out) {
  if (!obj.IsObject()) {
    return BadRequestError("invalid FieldsV1: expected an object at " +
                           (prefix.empty() ? std::string("the top") : PathString(prefix)));
  }
  if (obj.MemberCount() == 0 && !prefix.empty()) {
    out.Insert(prefix);
    return Status::Ok();
  }
  for (const auto& m : obj.GetObject()) {
    std::string key(m.name.GetString(), m.name.GetStringLength());
    if (key == ".") {
      if (!prefix.empty()) out.Insert(prefix);
      continue;
    }
    if (key.size() < 2 || key[1] != ':' || Rank(key) > 3) {
      return BadRequestError("invalid FieldsV1: unknown path element \"" + key + "\"");
    }
    prefix.push_back(std::move(key));
    Status st = Read(m.value, prefix, out);
    prefix.pop_back();
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

std::string ElementString(const std::string& e) {
  std::string_view body = std::string_view(e).substr(std::min<size_t>(2, e.size()));
  switch (Rank(e)) {
    case 0: return "." + std::string(body);
    case 2: return "[=" + std::string(body) + "]";  // JSON: strings quoted
    case 3: return "[" + std::string(body) + "]";
    case 1: {
      rapidjson::Document d;
      d.Parse(body.data(), body.size());
      if (d.HasParseError() || !d.IsObject()) return "[" + std::string(body) + "]";
      std::string out = "[";
      bool first = true;
      for (const auto& m : d.GetObject()) {
        if (!first) out += ",";
        first = false;
        rapidjson::StringBuffer buf;
        rapidjson::Writer<rapidjson::StringBuffer> w(buf);
        m.value.Accept(w);
        out += std::string(m.name.GetString(), m.name.GetStringLength()) + "=" + buf.GetString();
      }
      return out + "]";
    }
    default: return e;
  }
}

}  // namespace

std::string FieldElement(std::string_view name) { return "f:" + std::string(name); }
std::string IndexElement(size_t index) { return "i:" + std::to_string(index); }

std::string PathString(const FieldPath& path) {
  std::string out;
  for (const std::string& e : path) out += ElementString(e);
  return out;
}

bool FieldSet::HasAtOrBelow(const FieldPath& path) const {
  auto it = paths_.lower_bound(path);
  return it != paths_.end() && it->size() >= path.size() &&
         std::equal(path.begin(), path.end(), it->begin());
}

FieldSet FieldSet::Union(const FieldSet& other) const {
  FieldSet out = *this;
  out.paths_.insert(other.paths_.begin(), other.paths_.end());
  return out;
}

FieldSet FieldSet::Intersection(const FieldSet& other) const {
  FieldSet out;
  std::set_intersection(paths_.begin(), paths_.end(), other.paths_.begin(), other.paths_.end(),
                        std::inserter(out.paths_, out.paths_.end()));
  return out;
}

FieldSet FieldSet::Difference(const FieldSet& other) const {
  FieldSet out;
  std::set_difference(paths_.begin(), paths_.end(), other.paths_.begin(), other.paths_.end(),
                      std::inserter(out.paths_, out.paths_.end()));
  return out;
}

Result<FieldSet> FieldSet::FromFieldsV1(std::string_view json) {
  FieldSet out;
  if (json.empty()) return out;
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError()) return BadRequestError("invalid FieldsV1: not JSON");
  FieldPath prefix;
  ALLOT_RETURN_IF_ERROR(Read(d, prefix, out));
  return out;
}

std::string FieldSet::ToFieldsV1() const {
  Node root;
  for (const FieldPath& p : paths_) {
    Node* n = &root;
    for (const std::string& e : p) {
      auto& child = n->children[e];
      if (!child) child = std::make_unique<Node>();
      n = child.get();
    }
    n->member = true;
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  Write(root, w);
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace allot::api::managed_fields
