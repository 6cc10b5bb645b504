// InternedString: a string field whose values come from a small vocabulary, held as one shared
// copy per value instead of one copy per object.
//
// Most of a pod's strings repeat across every pod of a cluster: policies and enums
// ("IfNotPresent", "PreemptLowerPriority", "True"), defaults ("/dev/termination-log",
// "default-scheduler"), the namespace, image names, well-known finalizers; a claim's device
// class, driver and request names likewise. As std::string each costs 32 bytes in every object,
// plus a heap block once it is longer than 15 characters. An InternedString is 8 bytes and
// shares the value: equal values point at one copy in a process-wide table.
//
// The table never forgets a value, so it is bounded: about kMaxInterned values (threads racing
// to add the last ones may overshoot by one each) of at most kMaxInternedLength bytes. A value
// beyond either bound is kept by the object itself (one heap block, as std::string would), so a
// client that writes many distinct values costs memory in proportion, as before, but cannot
// grow the table. The price of never forgetting: a server that lives to see more distinct
// values than the bound (image tags over months of rollouts) shares the first ones and keeps
// the rest per object. Use it only for fields whose values are few across a cluster: never
// object, node or device names, uids, or free text.
//
// It reads like a const std::string (conversions to `const std::string&` and std::string_view,
// comparisons with any string) and is assigned from any string. Thread safety: as std::string
// (concurrent const use is safe); interning takes no lock.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace allot::api {

class InternedString;

// Any other type that reads as a string (std::string, string_view, literals): the operands
// InternedString compares with and concatenates with, beside InternedString itself.
template <class S>
concept StringLike =
    std::is_convertible_v<const S&, std::string_view> && !std::is_same_v<S, InternedString>;

class InternedString {
 public:
  // Bounds of the process-wide table (see above).
  static constexpr size_t kMaxInterned = 8192;
  static constexpr size_t kMaxInternedLength = 256;

  InternedString() = default;
  InternedString(std::string_view s) : rep_(Make(s)) {}    // NOLINT: implicit, as std::string
  InternedString(const char* s) : rep_(Make(s)) {}         // NOLINT
  InternedString(const std::string& s) : rep_(Make(s)) {}  // NOLINT
  InternedString(const InternedString& o) : rep_(o.owned() ? Copy(o.rep_) : o.rep_) {}
  InternedString(InternedString&& o) noexcept : rep_(std::exchange(o.rep_, 0)) {}
  InternedString& operator=(const InternedString& o) {
    if (this != &o) {
      InternedString copy(o);
      std::swap(rep_, copy.rep_);
    }
    return *this;
  }
  InternedString& operator=(InternedString&& o) noexcept {
    std::swap(rep_, o.rep_);
    return *this;
  }
  ~InternedString() {
    if (owned()) Free(rep_);
  }

  const std::string& str() const { return rep_ == 0 ? Empty() : *Pointer(); }
  operator const std::string&() const { return str(); }  // NOLINT: reads as a std::string
  operator std::string_view() const { return str(); }    // NOLINT
  bool empty() const { return rep_ == 0; }
  size_t size() const { return str().size(); }
  const char* data() const { return str().data(); }
  const char* c_str() const { return str().c_str(); }
  void clear() { *this = InternedString(); }

  // Whether the value sits in the shared table (false for the empty value and for a value past
  // the table's bounds, which this object keeps itself).
  bool interned() const { return rep_ != 0 && !owned(); }

  friend bool operator==(const InternedString& a, const InternedString& b) {
    if (a.rep_ == b.rep_) return true;
    if (a.interned() && b.interned()) return false;  // one copy per value
    return a.str() == b.str();
  }
  template <StringLike S>
  friend bool operator==(const InternedString& a, const S& b) {
    return std::string_view(a.str()) == std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const InternedString& a, const InternedString& b) {
    return std::string_view(a.str()) <=> std::string_view(b.str());
  }
  template <StringLike S>
  friend std::strong_ordering operator<=>(const InternedString& a, const S& b) {
    return std::string_view(a.str()) <=> std::string_view(b);
  }

  template <StringLike S>
  friend std::string operator+(const InternedString& a, const S& b) {
    std::string out(a.str());
    out.append(std::string_view(b));
    return out;
  }
  template <StringLike S>
  friend std::string operator+(const S& a, const InternedString& b) {
    std::string out(std::string_view{a});
    out.append(b.str());
    return out;
  }
  friend std::string operator+(const InternedString& a, const InternedString& b) {
    return a.str() + b.str();
  }

  // How many values the shared table holds (for tests and benchmarks).
  static size_t TableSize();

 private:
  // 0: empty. Otherwise the address of a std::string; the low bit set when this object owns it
  // (a value past the table's bounds), clear when it is the table's.
  static constexpr uintptr_t kOwned = 1;
  bool owned() const { return (rep_ & kOwned) != 0; }
  const std::string* Pointer() const {
    return reinterpret_cast<const std::string*>(rep_ & ~kOwned);
  }
  static const std::string& Empty();
  static uintptr_t Make(std::string_view s);
  static uintptr_t Copy(uintptr_t owned_rep);
  static void Free(uintptr_t owned_rep);

  uintptr_t rep_ = 0;
};

std::ostream& operator<<(std::ostream& os, const InternedString& s);

}  // namespace allot::api

template <>
struct std::hash<allot::api::InternedString> {
  size_t operator()(const allot::api::InternedString& s) const noexcept {
    return std::hash<std::string_view>()(s.str());
  }
};
