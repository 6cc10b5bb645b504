#include "common/log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>

namespace allot::log {

namespace {

std::atomic<int> g_verbosity{0};
// Component -> level, replaced whole (never mutated). g_has_components keeps the common case
// (no --vmodule) to one relaxed load.
using ComponentLevels = std::map<std::string, int, std::less<>>;
std::atomic<std::shared_ptr<const ComponentLevels>> g_components;
std::atomic<bool> g_has_components{false};

spdlog::logger& Logger() {
  static spdlog::logger* logger = [] {
    auto* l = new spdlog::logger("allot", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    // klog's shape: time (UTC, microseconds), one-letter level, then the message.
    l->set_formatter(std::make_unique<spdlog::pattern_formatter>("%Y-%m-%dT%H:%M:%S.%fZ %L %v",
                                                                 spdlog::pattern_time_type::utc));
    l->set_level(spdlog::level::info);
    l->flush_on(spdlog::level::info);
    return l;
  }();
  return *logger;
}

void Write(spdlog::level::level_enum level, std::string_view component, std::string_view msg) {
  Logger().log(level, "{}: {}", component, msg);
}

}  // namespace

void SetVerbosity(int level) { g_verbosity.store(level < 0 ? 0 : level); }
int Verbosity() { return g_verbosity.load(std::memory_order_relaxed); }

Status SetComponentVerbosity(std::string_view spec) {
  auto levels = std::make_shared<ComponentLevels>();
  for (bool more = !spec.empty(); more;) {
    const size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    more = comma != std::string_view::npos;
    if (more) spec = spec.substr(comma + 1);
    const size_t eq = item.find('=');
    int level = -1;
    if (eq != std::string_view::npos && eq > 0) {
      const std::string digits(item.substr(eq + 1));
      if (!digits.empty() && digits.size() < 4 &&
          digits.find_first_not_of("0123456789") == std::string::npos) {
        level = std::stoi(digits);
      }
    }
    if (level < 0) {
      return BadRequestError("invalid --vmodule entry \"" + std::string(item) +
                             "\": want component=N, e.g. scheduler=4");
    }
    (*levels)[std::string(item.substr(0, eq))] = level;
  }
  g_has_components.store(!levels->empty());
  g_components.store(std::move(levels));
  return Status::Ok();
}

int VerbosityFor(std::string_view component) {
  if (component.empty() || !g_has_components.load(std::memory_order_relaxed)) return Verbosity();
  std::shared_ptr<const ComponentLevels> levels = g_components.load();
  if (levels) {
    auto it = levels->find(component);
    if (it != levels->end()) return it->second;
  }
  return Verbosity();
}

bool V(int level, std::string_view component) { return level <= VerbosityFor(component); }

void Info(std::string_view component, std::string_view message) {
  Write(spdlog::level::info, component, message);
}
void Warning(std::string_view component, std::string_view message) {
  Write(spdlog::level::warn, component, message);
}
void Error(std::string_view component, std::string_view message) {
  Write(spdlog::level::err, component, message);
}
void Detail(int level, std::string_view component, std::string_view message) {
  if (V(level, component)) Write(spdlog::level::info, component, message);
}

}  // namespace allot::log
