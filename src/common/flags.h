// A small command-line flag parser: `--name value`, `--name=value`, boolean `--name`.
//
//   Flags f("allot serve", "Runs the embedded control plane.");
//   std::string listen = "127.0.0.1:6443";
//   f.String("listen", &listen, "address to listen on");
//   if (Status s = f.Parse(argc, argv); !s.ok()) ...
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace allot {

class Flags {
 public:
  Flags(std::string command, std::string summary)
      : command_(std::move(command)), summary_(std::move(summary)) {}

  void String(const std::string& name, std::string* out, const std::string& help);
  void Int(const std::string& name, int64_t* out, const std::string& help);
  void Bool(const std::string& name, bool* out, const std::string& help);

  // Parses argv[first..]; unknown flags and malformed values are errors. Positional
  // arguments are collected in positional(). `--help` sets help_requested().
  Status Parse(int argc, char** argv, int first = 2);
  const std::vector<std::string>& positional() const { return positional_; }
  bool help_requested() const { return help_; }
  std::string Usage() const;

 private:
  enum class Kind { kString, kInt, kBool };
  struct Flag {
    std::string name;
    Kind kind;
    void* out;
    std::string help;
    std::string default_text;
  };
  const Flag* Find(const std::string& name) const;
  Status Set(const Flag& f, const std::string& value);

  std::string command_;
  std::string summary_;
  std::vector<Flag> flags_;
  std::vector<std::string> positional_;
  bool help_ = false;
};

}  // namespace allot
