#include "api/machinery/interned_string.h"

#include <atomic>
#include <ostream>

namespace allot::api {
namespace {

// An open-addressing table of pointers to the interned values, probed linearly from the value's
// hash. Slots only ever go from null to a value, so a reader needs no lock: it loads each slot
// (acquire, pairing with the release of the compare-exchange that filled it) until it finds the
// value or a null slot. Twice as many slots as values keeps the probes short.
constexpr size_t kSlots = 2 * InternedString::kMaxInterned;
static_assert((kSlots & (kSlots - 1)) == 0, "a power of two");

std::atomic<const std::string*> slots[kSlots];
std::atomic<size_t> interned_count{0};

// The table's copy of `s`, added if it is not there; null once the table is full or `s` too long.
const std::string* Intern(std::string_view s) {
  if (s.size() > InternedString::kMaxInternedLength) return nullptr;
  const size_t hash = std::hash<std::string_view>()(s);
  for (size_t probe = 0; probe < kSlots; ++probe) {
    std::atomic<const std::string*>& slot = slots[(hash + probe) & (kSlots - 1)];
    const std::string* value = slot.load(std::memory_order_acquire);
    if (value == nullptr) {
      if (interned_count.load(std::memory_order_relaxed) >= InternedString::kMaxInterned) {
        return nullptr;
      }
      auto* fresh = new std::string(s);
      if (slot.compare_exchange_strong(value, fresh, std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
        interned_count.fetch_add(1, std::memory_order_relaxed);
        return fresh;
      }
      delete fresh;  // another thread filled the slot first; `value` is what it wrote
    }
    if (*value == s) return value;
  }
  return nullptr;
}

}  // namespace

const std::string& InternedString::Empty() {
  static const std::string empty;
  return empty;
}

uintptr_t InternedString::Make(std::string_view s) {
  if (s.empty()) return 0;
  if (const std::string* shared = Intern(s)) return reinterpret_cast<uintptr_t>(shared);
  return reinterpret_cast<uintptr_t>(new std::string(s)) | kOwned;
}

uintptr_t InternedString::Copy(uintptr_t owned_rep) {
  const auto* own = reinterpret_cast<const std::string*>(owned_rep & ~kOwned);
  return reinterpret_cast<uintptr_t>(new std::string(*own)) | kOwned;
}

void InternedString::Free(uintptr_t owned_rep) {
  delete reinterpret_cast<const std::string*>(owned_rep & ~kOwned);
}

size_t InternedString::TableSize() { return interned_count.load(std::memory_order_relaxed); }

std::ostream& operator<<(std::ostream& os, const InternedString& s) { return os << s.str(); }

}  // namespace allot::api
