#include "common/flags.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "common/log.h"

namespace allot {

struct Flags::App {
  CLI::App app;
  App(const std::string& summary, const std::string& command) : app(summary, command) {}
};

Flags::Flags(std::string command, std::string summary)
    : app_(std::make_unique<App>(summary, command)) {
  CLI::App& app = app_->app;
  app.set_help_flag("-h,--help", "print this help");
  app.add_option("-v,--v", verbosity_, "log verbosity: detail up to this level is logged")
      ->capture_default_str();
  app.add_option("--vmodule", vmodule_,
                 "verbosity per component, e.g. scheduler=4,resourceclaim=2 (overrides -v)");
  app.set_config("--flagfile", "", "read flags from this file (name = value per line)");
  app.add_option("args", positional_, "arguments");
  app.allow_extras(false);
  app.positionals_at_end(false);
}

Flags::~Flags() = default;

void Flags::String(const std::string& name, std::string* out, const std::string& help) {
  app_->app.add_option("--" + name, *out, help)->capture_default_str();
}

void Flags::Int(const std::string& name, int64_t* out, const std::string& help) {
  app_->app.add_option("--" + name, *out, help)->capture_default_str();
}

void Flags::Bool(const std::string& name, bool* out, const std::string& help) {
  app_->app.add_flag("--" + name, *out, help)->capture_default_str();
}

Status Flags::Parse(int argc, char** argv, int first) {
  // CLI11 takes the program name first, then the arguments.
  std::vector<const char*> args = {app_->app.get_name().c_str()};
  for (int i = first; i < argc; ++i) args.push_back(argv[i]);
  try {
    app_->app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp&) {
    help_ = true;
    return Status::Ok();
  } catch (const CLI::ParseError& e) {
    return BadRequestError(std::string(e.what()) + "\n" + Usage());
  }
  log::SetVerbosity(static_cast<int>(verbosity_));
  return log::SetComponentVerbosity(vmodule_);
}

std::optional<int> Flags::ParseOrExit(int argc, char** argv, int first) {
  Status s = Parse(argc, argv, first);
  if (s.ok() && !help_) return std::nullopt;
  std::fprintf(stderr, "%s\n", s.ok() ? Usage().c_str() : s.message().c_str());
  return s.ok() ? 0 : 2;
}

std::string Flags::Usage() const { return app_->app.help(); }

int Flags::UsageError(std::string_view problem) const {
  std::fprintf(stderr, "%s: %.*s\n%s\n", app_->app.get_name().c_str(),
               static_cast<int>(problem.size()), problem.data(), Usage().c_str());
  return 2;
}

std::vector<std::string> SplitCommaList(std::string_view value) {
  std::vector<std::string> out;
  while (!value.empty()) {
    size_t comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace allot
