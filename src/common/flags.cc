#include "common/flags.h"

#include <cerrno>
#include <cstdlib>

namespace allot {

void Flags::String(const std::string& name, std::string* out, const std::string& help) {
  flags_.push_back({name, Kind::kString, out, help, *out});
}

void Flags::Int(const std::string& name, int64_t* out, const std::string& help) {
  flags_.push_back({name, Kind::kInt, out, help, std::to_string(*out)});
}

void Flags::Bool(const std::string& name, bool* out, const std::string& help) {
  flags_.push_back({name, Kind::kBool, out, help, *out ? "true" : "false"});
}

const Flags::Flag* Flags::Find(const std::string& name) const {
  for (const auto& f : flags_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Status Flags::Set(const Flag& f, const std::string& value) {
  switch (f.kind) {
    case Kind::kString:
      *static_cast<std::string*>(f.out) = value;
      return Status::Ok();
    case Kind::kInt: {
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno != 0) {
        return BadRequestError("invalid value \"" + value + "\" for --" + f.name +
                               ": not an integer");
      }
      *static_cast<int64_t*>(f.out) = v;
      return Status::Ok();
    }
    case Kind::kBool:
      if (value == "true" || value == "1") {
        *static_cast<bool*>(f.out) = true;
      } else if (value == "false" || value == "0") {
        *static_cast<bool*>(f.out) = false;
      } else {
        return BadRequestError("invalid value \"" + value + "\" for --" + f.name +
                               ": want true or false");
      }
      return Status::Ok();
  }
  return Status::Ok();
}

Status Flags::Parse(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help_ = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    const Flag* f = Find(name);
    if (!f) return BadRequestError("unknown flag --" + name + "\n" + Usage());
    if (!has_value) {
      if (f->kind == Kind::kBool) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return BadRequestError("flag --" + name + " needs a value");
      }
    }
    ALLOT_RETURN_IF_ERROR(Set(*f, value));
  }
  return Status::Ok();
}

std::string Flags::Usage() const {
  std::string out = "usage: " + command_ + " [flags]\n" + summary_ + "\n\nflags:\n";
  for (const auto& f : flags_) {
    out += "  --" + f.name;
    if (f.kind != Kind::kBool) out += " value";
    out += "\n      " + f.help;
    if (!f.default_text.empty()) out += " (default " + f.default_text + ")";
    out += "\n";
  }
  return out;
}

}  // namespace allot
