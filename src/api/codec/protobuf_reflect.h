// Kubernetes' protobuf encoding of any API struct, derived from its Visit() and the field
// numbers of its ProtoMessage<T> table (api/machinery/protobuf_fields.h), the way
// api/machinery/reflect.h derives JSON. Include only from .cc files that also include the tables
// of every struct they encode (the group headers api/<group>/protobuf_messages*.h).
//
// Encoding writes fields in Visit order and leaves out empty strings, zero numbers, false, empty
// lists and maps and unset optionals, as proto2 readers take a missing field for its zero value;
// an optional that is set is always written, so presence survives. Decoding follows protobuf's
// rules: unknown fields are skipped, the last value of a scalar wins, messages merge. Repeated
// scalars are read unpacked only: Kubernetes' messages are proto2 and never pack.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "api/codec/opaque_messages.h"
#include "api/codec/protobuf_wire.h"
#include "api/machinery/boxed.h"
#include "api/machinery/field.h"
#include "api/machinery/flat_map.h"
#include "api/machinery/meta.h"
#include "api/machinery/object.h"
#include "api/machinery/protobuf_fields.h"
#include "api/machinery/quantity.h"
#include "api/machinery/rare.h"
#include "common/time.h"

namespace allot::api::protobuf {

// Decoding state: the field path for errors (through DecodeContext) and whether the input held a
// field that protobuf cannot carry here (ProtoAs::kOpaque), which callers answer with a 415.
struct DecodeState {
  DecodeContext ctx;
  bool unsupported = false;
  // Lenient: an opaque subtree with content is dropped (left empty) and `dropped` set, instead
  // of failing; for clients reading a server that models more than they do.
  bool lenient = false;
  bool dropped = false;

  // Maps that received an entry out of key order. Each is sorted once, when the decode ends
  // (Finish), or earlier where what holds it may move: a vector's element once it is read
  // (the next element may reallocate the vector), a value read into a temporary before it is
  // moved (ReadScoped). Sorting a map again each time its message repeats (protobuf merges
  // repeated messages) would let K records cost K sorts.
  template <class M>
  void ToNormalize(M& map) {
    if (!unsorted.empty() && unsorted.back().first == &map) return;
    unsorted.emplace_back(&map, [](void* m) { static_cast<M*>(m)->Normalize(); });
  }
  // Call once a decode has succeeded, before the object is used.
  void Finish() {
    if (!unsorted.empty()) NormalizeFrom(0);
  }
  // Runs `read` (which reads into something about to move or be moved) and sorts the maps it
  // noted while they are still where it read them.
  template <class Fn>
  bool ReadScoped(Fn&& read) {
    const size_t mark = unsorted.size();
    const bool ok = read();
    if (unsorted.size() > mark) NormalizeFrom(mark);
    return ok;
  }
  // Sorts each map noted since unsorted.size() was `mark`, once.
  void NormalizeFrom(size_t mark) {
    auto first = unsorted.begin() + static_cast<std::ptrdiff_t>(mark);
    std::sort(first, unsorted.end());
    for (auto it = first; it != unsorted.end(); ++it) {
      if (it == first || it->first != std::prev(it)->first) it->second(it->first);
    }
    unsorted.erase(first, unsorted.end());
  }
  std::vector<std::pair<void*, void (*)(void*)>> unsorted;
};

template <class T>
concept Message = requires { ProtoMessage<T>::kFields; };

template <class T>
struct Field;  // Write(w, number, as, v) -> bool, IsEmpty(v), Read(record, v, as, state) -> bool

// --- the non-template parts (api/codec/protobuf_reflect.cc) --------------------------------

void WriteTime(Writer& w, int number, const Time& v);
void WriteMicroTime(Writer& w, int number, const MicroTime& v);
void WriteQuantity(Writer& w, int number, const Quantity& v);
// False for an integer outside int32 (intVal's type), which protobuf cannot carry.
bool WriteIntOrString(Writer& w, int number, const IntOrString& v);
bool ReadTime(const Record& r, Time& out, DecodeState& s);
bool ReadMicroTime(const Record& r, MicroTime& out, DecodeState& s);
bool ReadDuration(const Record& r, Duration& out, DecodeState& s);
bool ReadQuantity(const Record& r, Quantity& out, DecodeState& s);
bool ReadIntOrString(const Record& r, IntOrString& out, DecodeState& s);
// A RawExtension's JSON; the bytes must be a JSON value, kept in compact form.
bool ReadRawExtension(const Record& r, RawJson& out, DecodeState& s);
bool WrongType(const Record& r, DecodeState& s);
bool Malformed(DecodeState& s);
// Whether `bytes` parse as a message whose every field holds its zero value (0, "", or such a
// message), as Go writes a struct with nothing set.
bool IsZeroMessage(std::string_view bytes, int depth = 0);

// --- scalars -------------------------------------------------------------------------------

template <>
struct Field<std::string> {
  static bool IsEmpty(const std::string& v) { return v.empty(); }
  static bool Write(Writer& w, int n, ProtoAs, const std::string& v) {
    w.BytesField(n, v);
    return true;
  }
  static bool Read(const Record& r, std::string& out, ProtoAs, DecodeState& s) {
    if (r.type != kLengthDelimited) return WrongType(r, s);
    out.assign(r.bytes);
    return true;
  }
};

template <>
struct Field<Bytes> {
  static bool IsEmpty(const Bytes& v) { return v.empty(); }
  static bool Write(Writer& w, int n, ProtoAs, const Bytes& v) {
    w.BytesField(n, v.data);
    return true;
  }
  static bool Read(const Record& r, Bytes& out, ProtoAs, DecodeState& s) {
    if (r.type != kLengthDelimited) return WrongType(r, s);
    out.data.assign(r.bytes);
    return true;
  }
};

template <>
struct Field<InternedString> {
  static bool IsEmpty(const InternedString& v) { return v.empty(); }
  static bool Write(Writer& w, int n, ProtoAs, const InternedString& v) {
    w.BytesField(n, v.str());
    return true;
  }
  static bool Read(const Record& r, InternedString& out, ProtoAs, DecodeState& s) {
    if (r.type != kLengthDelimited) return WrongType(r, s);
    out = InternedString(r.bytes);
    return true;
  }
};

template <class T>
  requires(std::is_same_v<T, bool> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>)
struct Field<T> {
  static bool IsEmpty(T v) { return v == 0; }
  static bool Write(Writer& w, int n, ProtoAs, T v) {
    w.IntField(n, static_cast<int64_t>(v));
    return true;
  }
  static bool Read(const Record& r, T& out, ProtoAs, DecodeState& s) {
    if (r.type != kVarint) return WrongType(r, s);
    if constexpr (std::is_same_v<T, bool>) {
      out = r.value != 0;
    } else {
      out = static_cast<T>(static_cast<int64_t>(r.value));
    }
    return true;
  }
};

template <>
struct Field<double> {
  static bool IsEmpty(double v) { return v == 0; }
  static bool Write(Writer& w, int n, ProtoAs, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    w.Fixed64Field(n, bits);
    return true;
  }
  static bool Read(const Record& r, double& out, ProtoAs, DecodeState& s) {
    if (r.type != kFixed64) return WrongType(r, s);
    std::memcpy(&out, &r.value, sizeof out);
    return true;
  }
};

template <>
struct Field<Time> {
  static bool IsEmpty(const Time&) { return false; }
  static bool Write(Writer& w, int n, ProtoAs, const Time& v) {
    WriteTime(w, n, v);
    return true;
  }
  static bool Read(const Record& r, Time& out, ProtoAs, DecodeState& s) {
    return ReadTime(r, out, s);
  }
};

template <>
struct Field<MicroTime> {
  static bool IsEmpty(const MicroTime&) { return false; }
  static bool Write(Writer& w, int n, ProtoAs, const MicroTime& v) {
    WriteMicroTime(w, n, v);
    return true;
  }
  static bool Read(const Record& r, MicroTime& out, ProtoAs, DecodeState& s) {
    return ReadMicroTime(r, out, s);
  }
};

template <>
struct Field<Duration> {
  static bool IsEmpty(const Duration&) { return false; }
  static bool Write(Writer& w, int n, ProtoAs, const Duration& v) {
    size_t mark = w.BeginNested(n);
    if (v.nanos != 0) w.IntField(1, v.nanos);
    w.EndNested(mark, false);
    return true;
  }
  static bool Read(const Record& r, Duration& out, ProtoAs, DecodeState& s) {
    return ReadDuration(r, out, s);
  }
};

template <>
struct Field<Quantity> {
  static bool IsEmpty(const Quantity&) { return false; }
  static bool Write(Writer& w, int n, ProtoAs, const Quantity& v) {
    WriteQuantity(w, n, v);
    return true;
  }
  static bool Read(const Record& r, Quantity& out, ProtoAs, DecodeState& s) {
    return ReadQuantity(r, out, s);
  }
};

template <>
struct Field<IntOrString> {
  static bool IsEmpty(const IntOrString& v) { return !v.is_string && v.int_value == 0; }
  static bool Write(Writer& w, int n, ProtoAs, const IntOrString& v) {
    return WriteIntOrString(w, n, v);
  }
  static bool Read(const Record& r, IntOrString& out, ProtoAs, DecodeState& s) {
    return ReadIntOrString(r, out, s);
  }
};

template <>
struct Field<RawJson> {
  static bool IsEmpty(const RawJson& v) { return v.empty(); }
  static bool Write(Writer& w, int n, ProtoAs as, const RawJson& v) {
    size_t mark = w.BeginNested(n);
    if (as == ProtoAs::kRawExtension) {
      w.BytesField(1, v.json);
    } else if (v.json != "{}") {
      return false;  // an opaque subtree with content: not carried
    }  // else an empty object: its message with no field set (defaulting leaves these)
    w.EndNested(mark, false);
    return true;
  }
  static bool Read(const Record& r, RawJson& out, ProtoAs as, DecodeState& s) {
    if (as != ProtoAs::kRawExtension) {
      // Go writes its non-pointer fields even when zero: `emptyDir: {}` arrives as {medium: ""}.
      if (r.type == kLengthDelimited && IsZeroMessage(r.bytes)) {
        out.json = "{}";
        return true;
      }
      if (s.lenient) {
        out.json.clear();
        s.dropped = true;
        return true;
      }
      s.unsupported = true;
      return s.ctx.ValueError(
          "this field cannot be read from application/vnd.kubernetes.protobuf; send the object "
          "as application/json");
    }
    return ReadRawExtension(r, out, s);
  }
};

// --- containers ------------------------------------------------------------------------------

template <class T>
struct Field<std::optional<T>> {
  static bool IsEmpty(const std::optional<T>& v) { return !v.has_value(); }
  static bool Write(Writer& w, int n, ProtoAs as, const std::optional<T>& v) {
    return Field<T>::Write(w, n, as, *v);
  }
  static bool Read(const Record& r, std::optional<T>& out, ProtoAs as, DecodeState& s) {
    if constexpr (std::is_same_v<T, Time> || std::is_same_v<T, MicroTime>) {
      // Go writes a zero metav1.Time (JSON null) as an empty message; a set one always carries
      // its seconds, even at the epoch.
      if (r.type == kLengthDelimited && r.bytes.empty()) {
        out.reset();
        return true;
      }
    }
    if (!out) out.emplace();
    return Field<T>::Read(r, *out, as, s);
  }
};

// A Boxed<T> (a struct) travels as std::optional<T>.
template <class T>
struct Field<Boxed<T>> {
  static bool IsEmpty(const Boxed<T>& v) { return !v.has_value(); }
  static bool Write(Writer& w, int n, ProtoAs as, const Boxed<T>& v) {
    return Field<T>::Write(w, n, as, *v);
  }
  static bool Read(const Record& r, Boxed<T>& out, ProtoAs as, DecodeState& s) {
    if (!out) out.emplace();
    return Field<T>::Read(r, *out, as, s);
  }
};

template <class T>
struct Field<std::vector<T>> {
  static bool IsEmpty(const std::vector<T>& v) { return v.empty(); }
  static bool Write(Writer& w, int n, ProtoAs as, const std::vector<T>& v) {
    for (const T& e : v) {
      if (!Field<T>::Write(w, n, as, e)) return false;
    }
    return true;
  }
  static bool Read(const Record& r, std::vector<T>& out, ProtoAs as, DecodeState& s) {
    s.ctx.PushIndex(static_cast<int64_t>(out.size()));
    T& element = out.emplace_back();
    bool ok = s.ReadScoped([&] { return Field<T>::Read(r, element, as, s); });
    s.ctx.Pop();
    return ok;
  }
};

// String-keyed maps: each entry is one record {1: key, 2: value}.
template <class T>
bool ReadMapEntry(const Record& r, std::string& key, T& value, ProtoAs as, DecodeState& s) {
  if (r.type != kLengthDelimited) return WrongType(r, s);
  Reader entry(r.bytes);
  Record e;
  while (entry.Next(e)) {
    if (e.number == 1) {
      if (!Field<std::string>::Read(e, key, as, s)) return false;
    } else if (e.number == 2) {
      s.ctx.PushKey(key);
      bool ok = s.ReadScoped([&] { return Field<T>::Read(e, value, as, s); });
      s.ctx.Pop();
      if (!ok) return false;
    }
  }
  if (!entry.ok()) return Malformed(s);
  return true;
}
template <class M, class T>
struct StringMapField {
  static bool IsEmpty(const M& v) { return v.empty(); }
  static bool Write(Writer& w, int n, ProtoAs as, const M& v) {
    for (const auto& [key, value] : v) {
      size_t mark = w.BeginNested(n);
      w.BytesField(1, key);
      if (!Field<T>::Write(w, 2, as, value)) return false;
      w.EndNested(mark, false);
    }
    return true;
  }
};
template <class T>
struct Field<std::map<std::string, T>> : StringMapField<std::map<std::string, T>, T> {
  static bool Read(const Record& r, std::map<std::string, T>& out, ProtoAs as, DecodeState& s) {
    std::string key;
    T value{};
    if (!ReadMapEntry(r, key, value, as, s)) return false;
    out.insert_or_assign(std::move(key), std::move(value));
    return true;
  }
};
// Go writes map entries sorted by key, so each one normally lands at the end; one out of order
// leaves the map to be sorted once (DecodeState::ToNormalize), so that no input costs more than
// a sort per map.
template <class T>
struct Field<FlatMap<std::string, T>> : StringMapField<FlatMap<std::string, T>, T> {
  static bool Read(const Record& r, FlatMap<std::string, T>& out, ProtoAs as, DecodeState& s) {
    std::pair<std::string, T> item;
    if (!ReadMapEntry(r, item.first, item.second, as, s)) return false;
    if (!out.AppendUnordered(std::move(item))) s.ToNormalize(out);
    return true;
  }
};

// --- messages --------------------------------------------------------------------------------

// A struct's Visit() order matched with its table: the number of each field (0: not carried)
// and, by number, the field's position in Visit order.
inline constexpr int kEmbeddedWrapper = -2;

struct Layout {
  std::vector<const ProtoField*> by_position;
  // -1 where no field has the number; kEmbeddedWrapper where fields of a Go-embedded struct
  // travel inside a message of that number.
  std::vector<int> position_of_number;
  std::vector<std::string> missing;  // Visit names the table does not number
};

struct NameVisitor {
  std::vector<const char*> names;
  template <class F>
  void operator()(const char* name, F&, FieldTags = {}) {
    names.push_back(name);
  }
};

template <class T>
const Layout& LayoutOf() {
  static const Layout layout = [] {
    Layout l;
    NameVisitor nv;
    T probe{};
    probe.Visit(nv);
    for (const char* name : nv.names) {
      const ProtoField* found = nullptr;
      for (const ProtoField& f : ProtoMessage<T>::kFields) {
        if (std::strcmp(f.name, name) == 0 && f.number > 0) found = &f;
      }
      if (!found) l.missing.emplace_back(name);
      l.by_position.push_back(found);
    }
    int max = 0;
    for (const ProtoField* f : l.by_position) max = std::max(max, f ? f->number : 0);
    l.position_of_number.assign(static_cast<size_t>(max) + 1, -1);
    for (size_t i = 0; i < l.by_position.size(); ++i) {
      const ProtoField* f = l.by_position[i];
      if (!f) continue;
      l.position_of_number[f->number] =
          f->as == ProtoAs::kEmbedded ? kEmbeddedWrapper : static_cast<int>(i);
    }
    return l;
  }();
  return layout;
}

template <class T>
bool WriteFields(Writer& w, const T& v);

// A field holding Kubernetes messages as JSON text (ProtoField::message).
template <class F>
inline constexpr bool kIsJsonMessage =
    std::is_same_v<F, RawJson> || std::is_same_v<F, std::vector<RawJson>>;

template <class F>
bool WriteJsonMessages(Writer& w, const ProtoField& spec, const F& f) {
  const OpaqueMessage* m = FindOpaqueMessage(spec.message);
  if (!m) return false;
  auto one = [&](const RawJson& v) {
    if (spec.as != ProtoAs::kEmbedded) return WriteOpaque(w, spec.number, *m, v.json);
    size_t outer = w.BeginNested(spec.number);
    bool ok = WriteOpaque(w, spec.inner, *m, v.json);
    w.EndNested(outer, /*drop_if_empty=*/true);
    return ok;
  };
  if constexpr (std::is_same_v<F, RawJson>) {
    return one(f);
  } else {
    for (const RawJson& v : f) {
      if (!one(v)) return false;
    }
    return true;
  }
}

template <class F>
bool ReadJsonMessage(const Record& r, const OpaqueMessage& m, F& out, DecodeState& s) {
  if (r.type != kLengthDelimited) return WrongType(r, s);
  if constexpr (std::is_same_v<F, RawJson>) {
    return ReadOpaque(r.bytes, m, out.json, s);
  } else {
    s.ctx.PushIndex(static_cast<int64_t>(out.size()));
    bool ok = ReadOpaque(r.bytes, m, out.emplace_back().json, s);
    s.ctx.Pop();
    return ok;
  }
}

struct EncodeVisitor {
  Writer& w;
  const Layout& layout;
  size_t position = 0;
  bool ok = true;

  template <class F>
  void operator()(const char*, const F& f, FieldTags = {}) {
    const ProtoField* spec = layout.by_position[position++];
    if (!ok) return;
    if constexpr (!Message<F>) {
      if (Field<F>::IsEmpty(f)) return;
    }
    if (!spec) {
      ok = false;  // a value with no number cannot be carried
      return;
    }
    if constexpr (kIsJsonMessage<F>) {
      if (spec->message) {
        ok = WriteJsonMessages(w, *spec, f);
        return;
      }
    }
    if (spec->as == ProtoAs::kEmbedded) {
      size_t outer = w.BeginNested(spec->number);
      ok = WriteOne(spec->inner, ProtoAs::kNatural, f);
      w.EndNested(outer, /*drop_if_empty=*/true);
    } else {
      ok = WriteOne(spec->number, spec->as, f);
    }
  }

  template <class F>
  bool WriteOne(int number, ProtoAs as, const F& f) {
    if constexpr (Message<F>) {
      size_t mark = w.BeginNested(number);
      bool written = WriteFields(w, f);
      w.EndNested(mark, /*drop_if_empty=*/true);  // a zero struct reads back the same
      return written;
    } else {
      return Field<F>::Write(w, number, as, f);
    }
  }
};

// Writes the fields of `v` (the content of its message, no tag or length). False when `v` holds
// a value protobuf cannot carry: an opaque subtree, or a field with no number.
template <class T>
bool WriteFields(Writer& w, const T& v) {
  EncodeVisitor ev{w, LayoutOf<T>()};
  const_cast<T&>(v).Visit(ev);
  return ev.ok;
}

template <class T>
bool ReadFields(std::string_view bytes, T& out, DecodeState& s);

struct DecodeFieldVisitor {
  const Record& record;
  const ProtoField& spec;
  size_t target;
  DecodeState& s;
  size_t position = 0;
  bool ok = true;

  template <class F>
  void operator()(const char* name, F& f, FieldTags = {}) {
    if (position++ != target) return;
    s.ctx.PushField(name);
    const OpaqueMessage* json_message = nullptr;
    if constexpr (kIsJsonMessage<F>) {
      if (spec.message) json_message = FindOpaqueMessage(spec.message);
    }
    if (json_message) {
      if constexpr (kIsJsonMessage<F>) ok = ReadJsonMessage(record, *json_message, f, s);
    } else if constexpr (Message<F>) {
      ok = record.type == kLengthDelimited ? ReadFields(record.bytes, f, s) : WrongType(record, s);
    } else {
      ok =
          Field<F>::Read(record, f, spec.as == ProtoAs::kEmbedded ? ProtoAs::kNatural : spec.as, s);
    }
    s.ctx.Pop();
  }
  // The rare part is allocated only for a field read to a value other than its zero
  // (api/machinery/rare.h). Go writes its plain strings and bools even when empty, so a pod
  // from client-go carries workingDir, stdin, hostname, ... as "" and false.
  template <class T, class F>
  void RareField(const char* name, Rare<T>& r, F T::*m, FieldTags tags) {
    if (position != target) {
      ++position;
    } else if (r.allocated()) {
      (*this)(name, r.edit().*m, tags);
    } else {
      F value{};  // unset, so reading into an empty value is the same as merging into it
      s.ReadScoped([&] {
        (*this)(name, value, tags);
        return ok;
      });
      r.set(m, std::move(value));
    }
  }
};

template <class T>
bool ReadRecord(const Record& r, size_t position, const ProtoField& spec, T& out, DecodeState& s) {
  DecodeFieldVisitor dv{r, spec, position, s};
  out.Visit(dv);
  return dv.ok;
}

// The records inside a Go-embedded struct's message (number `outer`), each read into the field
// of T that the table places there.
template <class T>
bool ReadEmbedded(const Record& wrapper, const Layout& layout, T& out, DecodeState& s) {
  if (wrapper.type != kLengthDelimited) return WrongType(wrapper, s);
  Reader reader(wrapper.bytes);
  Record r;
  while (reader.Next(r)) {
    for (size_t p = 0; p < layout.by_position.size(); ++p) {
      const ProtoField* f = layout.by_position[p];
      if (f && f->as == ProtoAs::kEmbedded && f->number == wrapper.number && f->inner == r.number) {
        if (!ReadRecord(r, p, *f, out, s)) return false;
      }
    }
  }
  return reader.ok() || Malformed(s);
}

// Merges the fields of the message `bytes` into `out`. False (with the error in s.ctx) on
// malformed input or a value of the wrong type.
template <class T>
bool ReadFields(std::string_view bytes, T& out, DecodeState& s) {
  const Layout& layout = LayoutOf<T>();
  Reader reader(bytes);
  Record r;
  while (reader.Next(r)) {
    if (static_cast<size_t>(r.number) >= layout.position_of_number.size()) continue;
    const int position = layout.position_of_number[r.number];
    if (position == kEmbeddedWrapper) {
      if (!ReadEmbedded(r, layout, out, s)) return false;
      continue;
    }
    if (position < 0) continue;  // a field Allot does not model
    const auto p = static_cast<size_t>(position);
    if (!ReadRecord(r, p, *layout.by_position[p], out, s)) return false;
  }
  return reader.ok() || Malformed(s);
}

template <Message T>
struct Field<T> {
  static bool IsEmpty(const T&) { return false; }
  static bool Write(Writer& w, int n, ProtoAs, const T& v) {
    size_t mark = w.BeginNested(n);
    bool ok = WriteFields(w, v);
    w.EndNested(mark, false);
    return ok;
  }
  static bool Read(const Record& r, T& out, ProtoAs, DecodeState& s) {
    if (r.type != kLengthDelimited) return WrongType(r, s);
    return ReadFields(r.bytes, out, s);
  }
};

// --- opaque fields --------------------------------------------------------------------------------

// The struct or scalar a field holds, through optional, vector and map.
template <class F>
struct Inner {
  using type = F;
};
template <class F>
struct Inner<std::optional<F>> : Inner<F> {};
template <class F>
struct Inner<Boxed<F>> : Inner<F> {};
template <class F>
struct Inner<std::vector<F>> : Inner<F> {};
template <class F>
struct Inner<std::map<std::string, F>> : Inner<F> {};
template <class F>
struct Inner<FlatMap<std::string, F>> : Inner<F> {};

// Whether T, or a struct it holds at any depth, has a RawJson field whose ProtoField (null
// where the table has none) satisfies `pred`; `seen` holds the structs already looked at.
template <class T, class Pred>
bool AnyRawJsonField(std::vector<const void*>& seen, const Pred& pred);

template <class Pred>
struct RawJsonFieldVisitor {
  const Layout& layout;
  std::vector<const void*>& seen;
  const Pred& pred;
  size_t position = 0;
  bool found = false;
  template <class F>
  void operator()(const char*, F&, FieldTags = {}) {
    const ProtoField* spec = layout.by_position[position++];
    using Element = typename Inner<F>::type;
    if constexpr (std::is_same_v<Element, RawJson>) {
      found = found || pred(spec);
    } else if constexpr (Message<Element>) {
      found = found || AnyRawJsonField<Element>(seen, pred);
    }
  }
};

template <class T, class Pred>
bool AnyRawJsonField(std::vector<const void*>& seen, const Pred& pred) {
  const void* key = &LayoutOf<T>();
  if (std::find(seen.begin(), seen.end(), key) != seen.end()) return false;
  seen.push_back(key);
  RawJsonFieldVisitor<Pred> visitor{LayoutOf<T>(), seen, pred};
  T probe{};
  probe.Visit(visitor);
  return visitor.found;
}

// Whether T, or a struct it holds at any depth, has a RawJson field that is neither a
// RawExtension nor a message of the catalog: a subtree protobuf carries only when empty.
template <class T>
bool HasOpaque() {
  std::vector<const void*> seen;
  return AnyRawJsonField<T>(seen, [](const ProtoField* spec) {
    return !(spec && (spec->as == ProtoAs::kRawExtension ||
                      (spec->message && FindOpaqueMessage(spec->message))));
  });
}

// Whether T, or a struct it holds at any depth, keeps as JSON a message that has defaults (a
// pod's probes, volume sources): what DefaultJsonMessages may change. Worked out once per T.
template <class T>
bool HasJsonMessageDefaults() {
  static const bool has = [] {
    std::vector<const void*> seen;
    return AnyRawJsonField<T>(seen, [](const ProtoField* spec) {
      const OpaqueMessage* m = spec && spec->message ? FindOpaqueMessage(spec->message) : nullptr;
      return m && OpaqueHasDefaults(*m);
    });
  }();
  return has;
}

// Whether T, or a struct it holds at any depth, keeps a message as JSON. Worked out once per T.
template <class T>
bool HasJsonMessages() {
  static const bool has = [] {
    std::vector<const void*> seen;
    return AnyRawJsonField<T>(seen, [](const ProtoField* spec) { return spec && spec->message; });
  }();
  return has;
}

// --- JSON text held for messages ------------------------------------------------------------------

// Calls fn(message, json) for the JSON text of every field of a struct that holds a message as
// JSON (ProtoField::message), at any depth, with ctx's path at that field; stops at the first
// call that returns false. Empty texts are skipped before the message is looked up, and so are
// structs that hold none (kOnlyWithDefaults: none that has defaults).
template <class T, class Fn, bool kOnlyWithDefaults = false>
bool VisitJsonMessages(T& v, DecodeContext& ctx, Fn& fn);

template <class Fn, bool kOnlyWithDefaults>
struct JsonMessageVisitor {
  const Layout& layout;
  DecodeContext& ctx;
  Fn& fn;
  size_t position = 0;
  bool ok = true;

  template <class F>
  void operator()(const char* name, F& f, FieldTags = {}) {
    const ProtoField* spec = layout.by_position[position++];
    if (ok) ok = Field(name, spec, f);
  }
  // An unset rare field holds nothing to visit.
  template <class T, class F>
  void RareField(const char* name, Rare<T>& r, F T::*m, FieldTags tags) {
    if (r.allocated()) {
      (*this)(name, r.edit().*m, tags);
    } else {
      ++position;
    }
  }

  template <class F>
  bool Field(const char* name, const ProtoField* spec, F& f) {
    using Element = typename Inner<F>::type;
    if constexpr (std::is_same_v<Element, RawJson>) {
      if (!spec || !spec->message) return true;
      const OpaqueMessage* m = nullptr;
      ctx.PushField(name);
      bool good = Each(f, [&](RawJson& j) {
        if (j.empty()) return true;
        if (!m) m = FindOpaqueMessage(spec->message);
        return !m || fn(*m, j.json);
      });
      ctx.Pop();
      return good;
    } else if constexpr (Message<Element>) {
      if (kOnlyWithDefaults ? !HasJsonMessageDefaults<Element>() : !HasJsonMessages<Element>()) {
        return true;
      }
      ctx.PushField(name);
      bool good = Each(f, [&](Element& e) {
        return VisitJsonMessages<Element, Fn, kOnlyWithDefaults>(e, ctx, fn);
      });
      ctx.Pop();
      return good;
    } else {
      return true;
    }
  }

  // Calls `fn` on each element `f` holds (itself, a set optional, each of a list or map).
  template <class F, class Each_Fn>
  bool Each(F& f, Each_Fn&& each) {
    if constexpr (requires { f.has_value(); }) {
      return !f.has_value() || Each(*f, each);
    } else if constexpr (requires { f.begin()->second; }) {
      for (auto& [key, value] : f) {
        ctx.PushKey(key);
        bool good = Each(value, each);
        ctx.Pop();
        if (!good) return false;
      }
      return true;
    } else if constexpr (requires { f.begin(); f.size(); } && !std::is_same_v<F, std::string>) {
      for (size_t i = 0; i < f.size(); ++i) {
        ctx.PushIndex(static_cast<int64_t>(i));
        bool good = Each(f[i], each);
        ctx.Pop();
        if (!good) return false;
      }
      return true;
    } else {
      return each(f);
    }
  }
};

template <class T, class Fn, bool kOnlyWithDefaults>
bool VisitJsonMessages(T& v, DecodeContext& ctx, Fn& fn) {
  JsonMessageVisitor<Fn, kOnlyWithDefaults> visitor{LayoutOf<T>(), ctx, fn};
  v.Visit(visitor);
  return visitor.ok;
}

// Checks, and rids of members their message lacks, the JSON text of every field that holds a
// message as JSON, at any depth (NormalizeOpaque).
template <class T>
bool NormalizeJsonMessages(T& v, DecodeContext& ctx) {
  auto fn = [&ctx](const OpaqueMessage& m, std::string& json) {
    return NormalizeOpaque(m, json, ctx);
  };
  return VisitJsonMessages(v, ctx, fn);
}

// Gives the JSON text of every field that holds a message as JSON the defaults kube-apiserver
// gives that message (DefaultOpaque).
template <class T>
void DefaultJsonMessages(T& v) {
  DecodeContext ctx;
  auto fn = [](const OpaqueMessage& m, std::string& json) {
    DefaultOpaque(m, json);  // returns at once for a message without defaults
    return true;
  };
  VisitJsonMessages<T, decltype(fn), /*kOnlyWithDefaults=*/true>(v, ctx, fn);
}

// --- completeness ------------------------------------------------------------------------------

// Every field of T and of the structs it holds, at any depth, that its table does not number:
// "PodSpec.foo". Empty when T travels whole. A struct with no table at all makes this fail to
// compile, which is the point.
template <class T>
void CollectMissing(std::vector<std::string>& out, std::vector<const void*>& seen);

struct MissingVisitor {
  std::vector<std::string>& out;
  std::vector<const void*>& seen;
  template <class F>
  void operator()(const char*, F&, FieldTags = {}) {
    using Element = typename Inner<F>::type;
    if constexpr (Message<Element>) {
      CollectMissing<Element>(out, seen);
    }
  }
};

template <class T>
void CollectMissing(std::vector<std::string>& out, std::vector<const void*>& seen) {
  const void* key = &LayoutOf<T>();
  if (std::find(seen.begin(), seen.end(), key) != seen.end()) return;
  seen.push_back(key);
  for (const std::string& name : LayoutOf<T>().missing) {
    out.push_back(std::string(typeid(T).name()) + "." + name);
  }
  MissingVisitor mv{out, seen};
  T probe{};
  probe.Visit(mv);
}

}  // namespace allot::api::protobuf
