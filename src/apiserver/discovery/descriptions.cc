#include "apiserver/discovery/descriptions.h"

#include <string>
#include <unordered_map>

namespace allot::apiserver {

extern const unsigned char kDescriptionsData[];
extern const unsigned long kDescriptionsDataSize;

namespace {

struct Catalog {
  std::unordered_map<std::string_view, std::string_view> by_key;
  std::vector<std::string_view> keys;
  std::vector<std::string_view> malformed;
};

Catalog Parse(std::string_view data) {
  Catalog c;
  while (!data.empty()) {
    size_t end = data.find('\n');
    std::string_view line = data.substr(0, end);
    data = end == std::string_view::npos ? std::string_view() : data.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    size_t tab = line.find('\t');
    std::string_view key = line.substr(0, tab);
    std::string_view text = tab == std::string_view::npos ? "" : line.substr(tab + 1);
    if (tab == 0 || text.empty() || text.find('\t') != std::string_view::npos ||
        !c.by_key.emplace(key, text).second) {
      c.malformed.push_back(line);  // no description, a second tab, or a key given twice
      continue;
    }
    c.keys.push_back(key);
  }
  return c;
}

const Catalog& TheCatalog() {
  static const Catalog catalog = Parse(
      {reinterpret_cast<const char*>(kDescriptionsData), kDescriptionsDataSize});
  return catalog;
}

std::string_view Find(std::string_view key) {
  const Catalog& c = TheCatalog();
  auto it = c.by_key.find(key);
  return it == c.by_key.end() ? std::string_view() : it->second;
}

}  // namespace

std::string_view TypeDescription(std::string_view type) { return Find(type); }

std::string_view FieldDescription(std::string_view type, std::string_view field) {
  std::string key;
  key.reserve(type.size() + 1 + field.size());
  key.append(type).append(".").append(field);
  return Find(key);
}

std::vector<std::string_view> DescriptionKeys() { return TheCatalog().keys; }
std::vector<std::string_view> MalformedDescriptionLines() { return TheCatalog().malformed; }

}  // namespace allot::apiserver
