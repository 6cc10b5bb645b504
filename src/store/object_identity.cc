// Uids and generateName suffixes of created objects (store/store_impl.h).
#include "store/store_impl.h"

namespace allot::store {

namespace {

// FNV-1a over `parts`, then splitmix64: a stable 64-bit hash.
uint64_t SeededHash(uint64_t seed, std::initializer_list<std::string_view> parts) {
  uint64_t h = 1469598103934665603ULL ^ seed;
  for (std::string_view p : parts) {
    for (unsigned char c : p) h = (h ^ c) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;  // separator
  }
  h += 0x9e3779b97f4a7c15ULL;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

}  // namespace

std::string Store::Impl::NewUid(const ResourceInfo& r, const std::string& key) {
  uint64_t a, b;
  if (options_.seed) {
    // The n-th object created at this key: a name reused later gets a new uid.
    const std::string n = std::to_string(++seeded_creations_[r.resource + "/" + key]);
    a = SeededHash(*options_.seed, {r.resource, key, n});
    b = SeededHash(*options_.seed + 1, {r.resource, key, n});
  } else {
    a = rng_();
    b = rng_();
  }
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 1
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string Store::Impl::RandomSuffix(const std::string& prefix) {
  std::string s;
  if (options_.seed) {
    uint64_t h = SeededHash(*options_.seed, {prefix, std::to_string(++seeded_suffixes_[prefix])});
    for (int i = 0; i < 5; ++i, h /= kGenerateNameAlphabet.size()) {
      s += kGenerateNameAlphabet[h % kGenerateNameAlphabet.size()];
    }
    return s;
  }
  for (int i = 0; i < 5; ++i) s += kGenerateNameAlphabet[rng_() % kGenerateNameAlphabet.size()];
  return s;
}

}  // namespace allot::store
