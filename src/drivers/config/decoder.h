// ConfigDecoder: what the drivers' configuration files share — YAML (or JSON) in, typed fields
// out, and every problem reported with its field path ("pools[1].count: Invalid value: -1: must
// be positive", "unknown field \"pools[0].colour\""), all at once rather than the first only.
//
//   class Decoder : public ConfigDecoder {
//    public:
//     void Config(const rapidjson::Value& doc, MyConfig& c) {
//       Fields(doc, api::Path(), "name, ...", [&](const std::string& key, const api::Path& p,
//                                                const rapidjson::Value& v) {
//         if (key == "name") return String(v, p, c.name), true;
//         return false;  // unknown
//       });
//     }
//   };
//   ALLOT_ASSIGN_OR_RETURN(rapidjson::Document doc, ParseConfigDocument(yaml, "pool config"));
//   Decoder d; d.Config(doc, config);
//   ALLOT_RETURN_IF_ERROR(ConfigProblems("pool config", d.Problems()));
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/machinery/validation.h"
#include "common/status.h"

namespace allot::drivers {

// The JSON text of a value, for error messages.
std::string JsonText(const rapidjson::Value& v);
// "2s", "500ms", "250us".
std::string DurationText(std::chrono::microseconds d);

// The YAML (or JSON) document as JSON; 400 "invalid <what>: ..." when it is neither.
Result<rapidjson::Document> ParseConfigDocument(std::string_view yaml, std::string_view what);
// OK when `problems` is empty; else 400 "invalid <what>:\n  <problem>\n  <problem>".
Status ConfigProblems(std::string_view what, const std::vector<std::string>& problems);

// Checks the drivers' configurations share.
// A DRA driver name: required, a DNS subdomain of at most 63 bytes.
void ValidateDriverName(const std::string& driver, const api::Path& p, api::FieldErrors& errs);
// Node labels to select by: valid label names and values.
void ValidateNodeLabels(const std::map<std::string, std::string>& labels, const api::Path& p,
                        api::FieldErrors& errs);
// A latency or interval: >= 0, or > 0 when `positive`.
void ValidateDuration(std::chrono::microseconds d, const api::Path& p, bool positive,
                      api::FieldErrors& errs);
// A probability in [0, 1].
void ValidateProbability(double v, const api::Path& p, api::FieldErrors& errs);

class ConfigDecoder {
 public:
  // Unknown fields first, then the field errors, in the order met.
  std::vector<std::string> Problems() const;

 protected:
  // A map of fields: calls `field(key, path, value)` for each, which answers false for a key
  // it does not know (reported as an unknown field). Not a map: "must be a map of fields
  // (<names>)".
  using FieldFn =
      std::function<bool(const std::string& key, const api::Path& p, const rapidjson::Value& v)>;
  void Fields(const rapidjson::Value& v, const api::Path& p, std::string_view names,
              const FieldFn& field);
  void Unknown(const api::Path& p);
  void Invalid(const rapidjson::Value& v, const api::Path& p, std::string_view detail);
  bool String(const rapidjson::Value& v, const api::Path& p, std::string& out);
  void StringMap(const rapidjson::Value& v, const api::Path& p,
                 std::map<std::string, std::string>& out);
  void StringList(const rapidjson::Value& v, const api::Path& p, std::vector<std::string>& out);
  // A Go duration string ("2s", "500ms").
  void Duration(const rapidjson::Value& v, const api::Path& p, std::chrono::microseconds& out);
  void Int(const rapidjson::Value& v, const api::Path& p, int64_t& out);
  void Uint(const rapidjson::Value& v, const api::Path& p, uint64_t& out);
  void Number(const rapidjson::Value& v, const api::Path& p, double& out);

  api::FieldErrors errs_;

 private:
  std::vector<std::string> unknown_;
};

}  // namespace allot::drivers
