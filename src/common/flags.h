// Command-line flags for the `allot` subcommands: a thin facade over CLI11 (Debian's
// libcli11-dev; its header stays in flags.cc), so every command parses, validates and documents
// its flags the same way.
//
//   Flags f("allot serve", "Runs the embedded control plane.");
//   std::string listen = "127.0.0.1:6443";
//   f.String("listen", &listen, "address to listen on");
//   if (Status s = f.Parse(argc, argv); !s.ok()) ...
//
// Accepted forms: `--name value`, `--name=value`, boolean `--name` or `--name=false`. Every
// command also takes:
//   -v N, --v=N         log verbosity (common/log.h), as Kubernetes components take it;
//   --vmodule C=N,...   verbosity per component (scheduler=4,fabric=2);
//   --flagfile FILE     flags from a file, one `name = value` per line (CLI11's INI/TOML form);
//   -h, --help          the usage text (help_requested()).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace allot {

class Flags {
 public:
  Flags(std::string command, std::string summary);
  ~Flags();

  void String(const std::string& name, std::string* out, const std::string& help);
  void Int(const std::string& name, int64_t* out, const std::string& help);
  void Bool(const std::string& name, bool* out, const std::string& help);

  // Parses argv[first..]; unknown flags and malformed values are 400 errors naming the flag.
  // Arguments that are not flags are collected in positional(). `--help` sets
  // help_requested(). On success the log verbosity is set from -v.
  Status Parse(int argc, char** argv, int first = 2);
  // Parse for a command's main function: when the command should stop here, prints why to
  // stderr and returns its exit code — 2 after an error (the message and the usage), 0 after
  // --help (the usage); nullopt when it should go on.
  std::optional<int> ParseOrExit(int argc, char** argv, int first = 2);
  const std::vector<std::string>& positional() const { return positional_; }
  bool help_requested() const { return help_; }
  std::string Usage() const;
  // After a parse, for a problem the flags alone do not catch (a required flag left out): prints
  // "<command>: <problem>" and the usage to stderr and returns 2, a usage error's exit code.
  int UsageError(std::string_view problem) const;

 private:
  struct App;  // CLI11's App
  std::unique_ptr<App> app_;
  std::vector<std::string> positional_;
  int64_t verbosity_ = 0;
  std::string vmodule_;
  bool help_ = false;
};

// The items of a comma-separated flag value ("a,b,,c" -> a, b, c; empty items dropped).
std::vector<std::string> SplitCommaList(std::string_view value);

}  // namespace allot
