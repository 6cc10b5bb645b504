#include "common/log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <memory>

namespace allot::log {

namespace {

std::atomic<int> g_verbosity{0};

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
  if (V(level)) Write(spdlog::level::info, component, message);
}

}  // namespace allot::log
