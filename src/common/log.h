// Leveled logging, as Kubernetes components log (klog): errors, warnings and info lines always,
// detail only up to the verbosity the operator asked for with `-v N` / `--v=N` (every `allot`
// subcommand takes it). Each line carries a UTC timestamp, the level and the component:
//
//   2026-11-25T12:00:00.123456Z I fabric: attached fab-0 to node-1
//
//   log::Info("fabric", "attached " + device + " to " + node);
//   if (log::V(4)) log::Info("scheduler", "...costly to build...");
//
// Lines go to stderr (spdlog, Debian's libspdlog; its headers stay in log.cc). Thread-safe.
#pragma once

#include <string_view>

#include "common/status.h"

namespace allot::log {

// Detail up to this level is logged (0: the default, only what every operator wants).
void SetVerbosity(int level);
int Verbosity();
// Per-component levels that override the global one, from `--vmodule scheduler=4,fabric=2`
// (klog's flag, by component rather than file). 400 for a malformed list. Call before the
// components start logging.
Status SetComponentVerbosity(std::string_view spec);
// The verbosity for `component`: its own level if one was set, else the global one.
int VerbosityFor(std::string_view component);
// Whether detail at `level` is wanted (for `component`, when given): guard the building of
// costly messages with it.
bool V(int level, std::string_view component = {});

void Info(std::string_view component, std::string_view message);
void Warning(std::string_view component, std::string_view message);
void Error(std::string_view component, std::string_view message);
// Info at verbosity `level`: logged only when V(level).
void Detail(int level, std::string_view component, std::string_view message);

}  // namespace allot::log
