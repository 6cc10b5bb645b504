#include "apiserver/transport/http_types.h"

#include <strings.h>

namespace allot::apiserver {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string_view Request::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (EqualsIgnoreCase(k, name)) return v;
  }
  return {};
}

std::optional<std::string_view> Request::Query(std::string_view name) const {
  for (const auto& [k, v] : query) {
    if (k == name) return std::string_view(v);
  }
  return std::nullopt;
}

std::vector<std::string_view> Request::QueryAll(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& [k, v] : query) {
    if (k == name) out.push_back(v);
  }
  return out;
}

std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%' && i + 2 < s.size()) {
      int hi = HexValue(s[i + 1]);
      int lo = HexValue(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

void SplitTarget(std::string_view target, std::string& path, Pairs& query) {
  size_t q = target.find('?');
  path = std::string(target.substr(0, q));
  query.clear();
  if (q == std::string_view::npos) return;
  std::string_view rest = target.substr(q + 1);
  size_t hash = rest.find('#');
  if (hash != std::string_view::npos) rest = rest.substr(0, hash);
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view part = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    std::string key = PercentDecode(part.substr(0, eq), true);
    std::string value =
        eq == std::string_view::npos ? std::string() : PercentDecode(part.substr(eq + 1), true);
    query.emplace_back(std::move(key), std::move(value));
  }
}

}  // namespace allot::apiserver
