// ObjectKeyView: an object's key, "<namespace>/<name>" (the name alone for a cluster-scoped
// resource), held as views of the object's own namespace and name instead of a string.
//
// The store's index and the informers' caches key every object they hold. A key string in each
// node cost 32 bytes and, past 15 characters (most: "default/bench-pod-12345"), a heap block of
// 32 or 48 more, for a string the object already holds in two parts. An ObjectKeyView orders
// exactly as the string would, without making it: ObjectKeyViewLess compares two keys, or a key
// and any string (a key, a namespace prefix "ns/", the key a continue token carries, however
// malformed), so the store's index stays in the order its lists and continue tokens rely on
// (a namespace is one range of it). ObjectKeyViewHash and ObjectKeyViewEq do the same for hash
// maps, against keys and key strings.
//
// The views point into the object held under the key; whoever replaces that object re-points
// them at the new one's metadata (the members are mutable for that, as map keys are const), so
// they never outlive what they view.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>

namespace allot::api {

struct ObjectKeyView {
  // Empty for a cluster-scoped resource; namespaces and names never contain '/'.
  mutable std::string_view ns;
  mutable std::string_view name;

  // The ObjectKey string.
  std::string str() const {
    if (ns.empty()) return std::string(name);
    std::string k(ns);
    k += '/';
    k.append(name);
    return k;
  }
};

namespace object_key_view_internal {

inline int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// Compares ns + "/" with the start of s (`ns` non-empty); on a tie sets `rest` to what follows
// the '/' in s.
inline int CompareNamespace(std::string_view ns, std::string_view s, std::string_view& rest) {
  const size_t n = std::min(ns.size(), s.size());
  if (int c = ns.substr(0, n).compare(s.substr(0, n)); c != 0) return Sign(c);
  if (s.size() <= ns.size()) return 1;  // s is a prefix of ns (or ns itself): ns + "/..." is longer
  const auto next = static_cast<unsigned char>(s[ns.size()]);
  if (next != '/') return static_cast<unsigned char>('/') < next ? -1 : 1;
  rest = s.substr(ns.size() + 1);
  return 0;
}

// The key against any string, as ObjectKey's string would compare with it: -1, 0 or 1.
inline int Compare(const ObjectKeyView& k, std::string_view s) {
  if (k.ns.empty()) return Sign(k.name.compare(s));
  std::string_view rest;
  if (int c = CompareNamespace(k.ns, s, rest); c != 0) return c;
  return Sign(k.name.compare(rest));
}

// Two keys of one table (both namespaced, or both not).
inline int Compare(const ObjectKeyView& a, const ObjectKeyView& b) {
  if (a.ns != b.ns) {
    // The first difference of a.ns + "/" and b.ns + "/" decides; it lies within the shorter
    // namespace, or is its '/' against the longer one's next character.
    const size_t n = std::min(a.ns.size(), b.ns.size());
    if (int c = a.ns.substr(0, n).compare(b.ns.substr(0, n)); c != 0) return Sign(c);
    const auto ca = static_cast<unsigned char>(a.ns.size() > n ? a.ns[n] : '/');
    const auto cb = static_cast<unsigned char>(b.ns.size() > n ? b.ns[n] : '/');
    return ca < cb ? -1 : 1;
  }
  return Sign(a.name.compare(b.name));
}

}  // namespace object_key_view_internal

struct ObjectKeyViewLess {
  using is_transparent = void;
  bool operator()(const ObjectKeyView& a, const ObjectKeyView& b) const {
    return object_key_view_internal::Compare(a, b) < 0;
  }
  bool operator()(const ObjectKeyView& a, std::string_view b) const {
    return object_key_view_internal::Compare(a, b) < 0;
  }
  bool operator()(std::string_view a, const ObjectKeyView& b) const {
    return object_key_view_internal::Compare(b, a) > 0;
  }
};

// Hashing: a key, and its string ("ns/name"; "/name" or "name" for a cluster-scoped one), hash
// alike.
struct ObjectKeyViewHash {
  using is_transparent = void;
  size_t operator()(const ObjectKeyView& k) const {
    return std::hash<std::string_view>()(k.ns) ^
           (std::hash<std::string_view>()(k.name) * 0x9E3779B97F4A7C15ULL);
  }
  size_t operator()(std::string_view key) const { return (*this)(Split(key)); }
  // Namespaces and names never hold a '/'; a string without one is a name alone.
  static ObjectKeyView Split(std::string_view key) {
    const size_t slash = key.find('/');
    if (slash == std::string_view::npos) return {{}, key};
    return {key.substr(0, slash), key.substr(slash + 1)};
  }
};

struct ObjectKeyViewEq {
  using is_transparent = void;
  bool operator()(const ObjectKeyView& a, const ObjectKeyView& b) const {
    return a.ns == b.ns && a.name == b.name;
  }
  bool operator()(const ObjectKeyView& a, std::string_view b) const {
    return (*this)(a, ObjectKeyViewHash::Split(b));
  }
  bool operator()(std::string_view a, const ObjectKeyView& b) const { return (*this)(b, a); }
};

}  // namespace allot::api
