#include "drivers/acceleratorpool/config.h"

#include "api/machinery/meta_validation.h"
#include "drivers/config/decoder.h"

namespace allot::drivers {

namespace {

using api::Path;

constexpr int64_t kMaxRackCapacity = 1000;
constexpr int64_t kMaxWorkers = 64;

class Decoder : public ConfigDecoder {
 public:
  void Config(const rapidjson::Value& doc, AcceleratorPoolConfig& c) {
    Fields(doc, Path(), "driver, racks, ...",
           [&](const std::string& key, const Path& p, const rapidjson::Value& v) {
             if (key == "driver") {
               String(v, p, c.driver);
             } else if (key == "nodeSelector") {
               StringMap(v, p, c.node_selector);
             } else if (key == "rackLabel") {
               String(v, p, c.rack_label);
             } else if (key == "nodeRacks") {
               StringMap(v, p, c.node_racks);
             } else if (key == "racks") {
               if (!v.IsObject()) {
                 Invalid(v, p, "must be a map of rack names to accelerator counts");
                 return true;
               }
               for (const auto& r : v.GetObject()) {
                 Int(r.value, p.Key(r.name.GetString()), c.racks[r.name.GetString()]);
               }
             } else if (key == "perNodeLimit") {
               Int(v, p, c.per_node_limit);
             } else if (key == "answerLatency") {
               Duration(v, p, c.answer_latency);
             } else if (key == "allocateLatency") {
               Duration(v, p, c.allocate_latency);
             } else if (key == "failureRate") {
               Number(v, p, c.failure_rate);
             } else if (key == "seed") {
               Uint(v, p, c.seed);
             } else if (key == "workers") {
               Int(v, p, c.workers);
             } else {
               return false;
             }
             return true;
           });
  }
};

}  // namespace

Result<AcceleratorPoolConfig> ParseAcceleratorPoolConfig(std::string_view yaml) {
  ALLOT_ASSIGN_OR_RETURN(rapidjson::Document doc,
                         ParseConfigDocument(yaml, "accelerator pool config"));
  AcceleratorPoolConfig config;
  Decoder decoder;
  decoder.Config(doc, config);
  ALLOT_RETURN_IF_ERROR(ConfigProblems("accelerator pool config", decoder.Problems()));
  ALLOT_RETURN_IF_ERROR(ValidateAcceleratorPoolConfig(config));
  return config;
}

Status ValidateAcceleratorPoolConfig(const AcceleratorPoolConfig& c) {
  api::FieldErrors errs;
  const Path root;
  ValidateDriverName(c.driver, root.Child("driver"), errs);
  ValidateNodeLabels(c.node_selector, root.Child("nodeSelector"), errs);
  if (c.rack_label.empty()) {
    errs.Required(root.Child("rackLabel"));
  } else {
    api::ValidateLabelName(c.rack_label, root.Child("rackLabel"), errs);
  }
  if (c.racks.empty()) errs.Required(root.Child("racks"), "at least one rack of accelerators");
  for (const auto& [rack, n] : c.racks) {
    const Path p = root.Child("racks").Key(rack);
    api::ValidateLabelValue(rack, p, errs);
    if (rack.empty()) errs.Invalid(p, rack, "must not be empty");
    if (n < 1 || n > kMaxRackCapacity) {
      errs.InvalidInt(p, n, "must be between 1 and " + std::to_string(kMaxRackCapacity));
    }
  }
  for (const auto& [node, rack] : c.node_racks) {
    if (!c.racks.contains(rack)) {
      errs.Invalid(root.Child("nodeRacks").Key(node), rack, "must name a rack in racks");
    }
  }
  if (c.per_node_limit < 1) {
    errs.InvalidInt(root.Child("perNodeLimit"), c.per_node_limit, "must be positive");
  }
  ValidateDuration(c.answer_latency, root.Child("answerLatency"), false, errs);
  ValidateDuration(c.allocate_latency, root.Child("allocateLatency"), false, errs);
  ValidateProbability(c.failure_rate, root.Child("failureRate"), errs);
  if (c.workers < 1 || c.workers > kMaxWorkers) {
    errs.InvalidInt(root.Child("workers"), c.workers,
                    "must be between 1 and " + std::to_string(kMaxWorkers));
  }
  return ConfigProblems("accelerator pool config", errs.Messages());
}

}  // namespace allot::drivers
