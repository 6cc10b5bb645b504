// IndexKey: the key of an object in the store's index, held as views of the object's own
// namespace and name instead of a string of its own.
//
// The index orders objects by ObjectKey ("<namespace>/<name>", or the name alone for a
// cluster-scoped resource; store/object_key.h), so that a namespace is one range and a list's
// continue key is a position in it. Keeping that string in every node cost each object 32 bytes
// and, for keys over 15 characters (most: "default/bench-pod-12345"), a heap block of 32 or 48
// more. An IndexKey orders exactly as that string would, without making it: IndexKeyLess
// compares two keys, or a key and any string (an ObjectKey, a namespace prefix "ns/", the key a
// continue token carries, however malformed).
//
// The views point into the object the index holds under the key; whoever replaces that object
// re-points them at the new one's metadata (the members are mutable for that, as std::map keys
// are const), so they never outlive what they view.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace allot::store {

struct IndexKey {
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

namespace index_key_internal {

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
inline int Compare(const IndexKey& k, std::string_view s) {
  if (k.ns.empty()) return Sign(k.name.compare(s));
  std::string_view rest;
  if (int c = CompareNamespace(k.ns, s, rest); c != 0) return c;
  return Sign(k.name.compare(rest));
}

// Two keys of one table (both namespaced, or both not).
inline int Compare(const IndexKey& a, const IndexKey& b) {
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

}  // namespace index_key_internal

struct IndexKeyLess {
  using is_transparent = void;
  bool operator()(const IndexKey& a, const IndexKey& b) const {
    return index_key_internal::Compare(a, b) < 0;
  }
  bool operator()(const IndexKey& a, std::string_view b) const {
    return index_key_internal::Compare(a, b) < 0;
  }
  bool operator()(std::string_view a, const IndexKey& b) const {
    return index_key_internal::Compare(b, a) > 0;
  }
};

}  // namespace allot::store
