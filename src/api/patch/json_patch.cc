// RFC 6902 JSON Patch (with RFC 6901 pointers) and RFC 7386 JSON Merge Patch on RapidJSON
// values. Error texts follow evanphx/json-patch, the library the apiserver uses.
#include <rapidjson/writer.h>

#include <optional>
#include <string>
#include <vector>

#include "api/patch/patch_internal.h"

namespace allot::api::patch_internal {
namespace {

using Tokens = std::vector<std::string>;

Status OpError(std::string message) { return Status(StatusCode::kInvalid, std::move(message)); }

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// RFC 6901: "" is the whole document; otherwise "/"-separated tokens with ~1 for '/' and ~0
// for '~'.
Result<Tokens> ParsePointer(std::string_view pointer) {
  Tokens tokens;
  if (pointer.empty()) return tokens;
  if (pointer[0] != '/') return OpError("invalid JSON pointer " + Quote(pointer));
  std::string current;
  for (size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(std::move(current));
      current.clear();
    } else if (pointer[i] == '~') {
      char next = i + 1 < pointer.size() ? pointer[i + 1] : '\0';
      if (next != '0' && next != '1') return OpError("invalid JSON pointer " + Quote(pointer));
      current += next == '0' ? '~' : '/';
      ++i;
    } else {
      current += pointer[i];
    }
  }
  return tokens;
}

// An array index: "0" or a digit string without a leading zero.
std::optional<size_t> ParseIndex(std::string_view token) {
  if (token.empty() || token.size() > 9) return std::nullopt;
  if (token.size() > 1 && token[0] == '0') return std::nullopt;
  size_t n = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  return n;
}

// The value at tokens[0..n), or nullptr.
Json* Walk(Json& root, const Tokens& tokens, size_t n) {
  Json* cur = &root;
  for (size_t i = 0; i < n && cur; ++i) {
    if (cur->IsObject()) {
      cur = Member(*cur, tokens[i]);
    } else if (cur->IsArray()) {
      std::optional<size_t> idx = ParseIndex(tokens[i]);
      cur = idx && *idx < cur->Size() ? &(*cur)[static_cast<rapidjson::SizeType>(*idx)] : nullptr;
    } else {
      cur = nullptr;
    }
  }
  return cur;
}

struct CountingStream {
  using Ch = char;
  size_t n = 0;
  void Put(char) { ++n; }
  void Flush() {}
};

size_t EncodedSize(const Json& v) {
  CountingStream s;
  rapidjson::Writer<CountingStream> w(s);
  v.Accept(w);
  return s.n;
}

class JsonPatcher {
 public:
  JsonPatcher(Json& doc, Alloc& a) : doc_(doc), a_(a) {}

  Status Apply(Json& op) {
    std::string kind = StringMember(op, "op").value_or("unknown");
    if (kind != "add" && kind != "remove" && kind != "replace" && kind != "move" &&
        kind != "copy" && kind != "test") {
      return OpError("Unexpected kind: " + kind);
    }
    std::optional<std::string> path = StringMember(op, "path");
    if (!path) return OpError("operation missing path field: missing value");
    ALLOT_ASSIGN_OR_RETURN(Tokens tokens, ParsePointer(*path));
    if (kind == "remove") return Remove(tokens, *path, nullptr);
    if (kind == "move" || kind == "copy") {
      std::optional<std::string> from = StringMember(op, "from");
      if (!from) return OpError(kind + " operation missing from field: missing value");
      ALLOT_ASSIGN_OR_RETURN(Tokens from_tokens, ParsePointer(*from));
      return kind == "move" ? Move(from_tokens, *from, tokens, *path)
                            : Copy(from_tokens, *from, tokens, *path);
    }
    Json* value = op.IsObject() ? Member(op, "value") : nullptr;
    if (!value) return OpError(kind + " operation missing value field: missing value");
    if (kind == "add") return Add(tokens, *path, *value);
    if (kind == "replace") return Replace(tokens, *path, *value);
    return Test(tokens, *path, *value);
  }

 private:
  static std::optional<std::string> StringMember(Json& op, std::string_view name) {
    if (!op.IsObject()) return std::nullopt;
    Json* v = Member(op, name);
    if (!v || !v->IsString()) return std::nullopt;
    return std::string(Str(*v));
  }

  Status Add(const Tokens& t, const std::string& path, Json& value) {
    if (t.empty()) {
      doc_ = value;
      return Status::Ok();
    }
    Json* parent = Walk(doc_, t, t.size() - 1);
    const std::string& last = t.back();
    if (parent && parent->IsObject()) {
      SetMember(*parent, last, value, a_);
      return Status::Ok();
    }
    if (!parent || !parent->IsArray()) {
      return OpError("add operation does not apply: doc is missing path: " + Quote(path) +
                     ": missing value");
    }
    if (last == "-") {
      parent->PushBack(value, a_);
      return Status::Ok();
    }
    std::optional<size_t> idx = ParseIndex(last);
    if (!idx || *idx > parent->Size()) {
      return OpError("add operation does not apply: invalid index in path " + Quote(path));
    }
    parent->PushBack(value, a_);
    for (size_t i = parent->Size() - 1; i > *idx; --i) {
      (*parent)[static_cast<rapidjson::SizeType>(i)].Swap(
          (*parent)[static_cast<rapidjson::SizeType>(i - 1)]);
    }
    return Status::Ok();
  }

  // Removes the value at `t`; moves it into `out` when given.
  Status Remove(const Tokens& t, const std::string& path, Json* out) {
    Json* parent = t.empty() ? nullptr : Walk(doc_, t, t.size() - 1);
    const std::string missing =
        "remove operation does not apply: doc is missing path: " + Quote(path) + ": missing value";
    if (!parent) return OpError(t.empty() ? "cannot remove the document root" : missing);
    if (parent->IsObject()) {
      auto it = parent->MemberBegin();
      while (it != parent->MemberEnd() && Str(it->name) != t.back()) ++it;
      if (it == parent->MemberEnd()) return OpError(missing);
      if (out) *out = it->value;
      parent->EraseMember(it);
      return Status::Ok();
    }
    std::optional<size_t> idx = parent->IsArray() ? ParseIndex(t.back()) : std::nullopt;
    if (!idx || *idx >= parent->Size()) return OpError(missing);
    auto it = parent->Begin() + *idx;
    if (out) *out = *it;
    parent->Erase(it);
    return Status::Ok();
  }

  Status Replace(const Tokens& t, const std::string& path, Json& value) {
    Json* target = Walk(doc_, t, t.size());
    if (!target) {
      return OpError("replace operation does not apply: doc is missing key: " + path +
                     ": missing value");
    }
    *target = value;
    return Status::Ok();
  }

  static bool IsProperPrefix(const Tokens& prefix, const Tokens& t) {
    if (prefix.size() >= t.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (prefix[i] != t[i]) return false;
    }
    return true;
  }

  Status Move(const Tokens& from, const std::string& from_path, const Tokens& t,
              const std::string& path) {
    if (!Walk(doc_, from, from.size())) {
      return OpError("move operation does not apply: doc is missing from path: " + from_path +
                     ": missing value");
    }
    if (from == t) return Status::Ok();
    if (IsProperPrefix(from, t)) {
      return OpError("move operation does not apply: " + Quote(from_path) + " is a prefix of " +
                     Quote(path));
    }
    Json value;
    ALLOT_RETURN_IF_ERROR(Remove(from, from_path, &value));
    return Add(t, path, value);
  }

  Status Copy(const Tokens& from, const std::string& from_path, const Tokens& t,
              const std::string& path) {
    Json* source = Walk(doc_, from, from.size());
    if (!source) {
      return OpError("copy operation does not apply: doc is missing from path: " + from_path +
                     ": missing value");
    }
    copied_bytes_ += EncodedSize(*source);
    if (copied_bytes_ > kJsonPatchMaxCopyBytes) {
      return OpError("Unable to copy, the accumulated size increase of copy is " +
                     std::to_string(copied_bytes_) + ", exceeding the limit " +
                     std::to_string(kJsonPatchMaxCopyBytes));
    }
    Json value(*source, a_);
    return Add(t, path, value);
  }

  Status Test(const Tokens& t, const std::string& path, const Json& value) {
    Json* target = Walk(doc_, t, t.size());
    if (!target || !JsonEqual(*target, value)) {
      return OpError("testing value " + path + " failed: test failed");
    }
    return Status::Ok();
  }

  Json& doc_;
  Alloc& a_;
  size_t copied_bytes_ = 0;
};

}  // namespace

Status ApplyJsonPatch(Json& doc, Json& ops, Alloc& a) {
  if (ops.IsNull()) return Status::Ok();  // Go decodes null into an empty patch
  if (!ops.IsArray()) {
    return BadRequestError(std::string("json: cannot unmarshal ") +
                           (ops.IsObject()   ? "object"
                            : ops.IsString() ? "string"
                            : ops.IsNumber() ? "number"
                                             : "bool") +
                           " into Go value of type jsonpatch.Patch");
  }
  for (Json& op : ops.GetArray()) {
    if (!op.IsObject() && !op.IsNull()) {
      return BadRequestError(std::string("json: cannot unmarshal ") +
                             (op.IsArray()    ? "array"
                              : op.IsString() ? "string"
                              : op.IsNumber() ? "number"
                                              : "bool") +
                             " into Go value of type jsonpatch.Operation");
    }
  }
  if (ops.Size() > kMaxJsonPatchOperations) {
    return Status(StatusCode::kRequestEntityTooLarge,
                  "Request entity too large: The allowed maximum operations in a JSON patch is " +
                      std::to_string(kMaxJsonPatchOperations) + ", got " +
                      std::to_string(ops.Size()));
  }
  JsonPatcher patcher(doc, a);
  for (Json& op : ops.GetArray()) ALLOT_RETURN_IF_ERROR(patcher.Apply(op));
  return Status::Ok();
}

void MergePatch(Json& target, Json& patch, Alloc& a) {
  if (!patch.IsObject()) {
    target = patch;
    return;
  }
  if (!target.IsObject()) target.SetObject();
  for (auto& m : patch.GetObject()) {
    std::string_view name = Str(m.name);
    if (m.value.IsNull()) {
      RemoveMember(target, name);
      continue;
    }
    Json* existing = Member(target, name);
    if (!existing) {
      Json null_value;
      SetMember(target, name, null_value, a);
      existing = Member(target, name);
    }
    MergePatch(*existing, m.value, a);
  }
}

}  // namespace allot::api::patch_internal
