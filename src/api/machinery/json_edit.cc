#include "api/machinery/json_edit.h"

namespace allot::api::json_edit {

namespace {

Value Key(std::string_view name, Allocator& a) {
  return Value(name.data(), static_cast<rapidjson::SizeType>(name.size()), a);
}

Value::MemberIterator Find(Value& obj, std::string_view name) {
  return obj.FindMember(Value(rapidjson::StringRef(name.data(), name.size())));
}

}  // namespace

Value* Member(Value& obj, std::string_view name) {
  if (!obj.IsObject()) return nullptr;
  auto it = Find(obj, name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

void SetApiVersion(Document& doc, std::string_view api_version) {
  if (!doc.IsObject()) return;
  Allocator& a = doc.GetAllocator();
  if (Value* v = Member(doc, "apiVersion")) {
    v->SetString(api_version.data(), static_cast<rapidjson::SizeType>(api_version.size()), a);
  } else {
    doc.AddMember(Key("apiVersion", a), Key(api_version, a), a);
  }
}

void Rename(Value& obj, std::string_view from, std::string_view to, Allocator& a) {
  if (!obj.IsObject()) return;
  auto it = Find(obj, from);
  if (it == obj.MemberEnd()) return;
  it->name.SetString(to.data(), static_cast<rapidjson::SizeType>(to.size()), a);
}

void MoveMembers(Value& from, Value& to, std::initializer_list<std::string_view> names,
                 Allocator& a) {
  if (!from.IsObject() || !to.IsObject()) return;
  for (std::string_view name : names) {
    auto it = Find(from, name);
    if (it == from.MemberEnd()) continue;
    to.AddMember(Key(name, a), it->value, a);
    from.EraseMember(it);
  }
}

void MoveAllMembers(Value& from, Value& to, Allocator& a) {
  if (!from.IsObject() || !to.IsObject()) return;
  for (auto& m : from.GetObject()) to.AddMember(m.name, m.value, a);
  from.RemoveAllMembers();
}

void Reorder(Value& obj, std::initializer_list<std::string_view> order, Allocator& a) {
  if (!obj.IsObject()) return;
  Value out(rapidjson::kObjectType);
  MoveMembers(obj, out, order, a);
  MoveAllMembers(obj, out, a);
  obj.Swap(out);
}

}  // namespace allot::api::json_edit
