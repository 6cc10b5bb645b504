#include "common/process_stats.h"

#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "common/files.h"

namespace allot {

namespace {

// The value of "Key:\t<number>" in a /proc status file, or -1.
int64_t StatusField(const std::string& text, std::string_view key) {
  size_t at = 0;
  while ((at = text.find(key, at)) != std::string::npos) {
    if ((at == 0 || text[at - 1] == '\n') && at + key.size() < text.size() &&
        text[at + key.size()] == ':') {
      return std::strtoll(text.c_str() + at + key.size() + 1, nullptr, 10);
    }
    at += key.size();
  }
  return -1;
}

// The file's text; "" when it cannot be read (a thread that ended meanwhile).
std::string Slurp(const std::filesystem::path& p) {
  Result<std::string> text = ReadFile(p.string());
  return text.ok() ? std::move(*text) : std::string();
}

}  // namespace

Result<ProcessStats> ReadProcessStats(pid_t pid) {
  const std::filesystem::path dir = pid == 0
                                        ? std::filesystem::path("/proc/self")
                                        : std::filesystem::path("/proc/" + std::to_string(pid));
  std::error_code ec;
  if (!std::filesystem::exists(dir / "status", ec)) {
    return Status(StatusCode::kNotFound, "no process " + std::to_string(pid));
  }
  ProcessStats out;
  const int64_t rss_kb = StatusField(Slurp(dir / "status"), "VmRSS");
  if (rss_kb < 0) return InternalError("no VmRSS in " + (dir / "status").string());
  out.rss_bytes = rss_kb * 1024;
  for (const auto& task : std::filesystem::directory_iterator(dir / "task", ec)) {
    const int64_t switches = StatusField(Slurp(task.path() / "status"), "voluntary_ctxt_switches");
    if (switches < 0) continue;  // the thread ended between the listing and the read
    std::string name = Slurp(task.path() / "comm");
    if (!name.empty() && name.back() == '\n') name.pop_back();
    out.wakeups += static_cast<uint64_t>(switches);
    out.wakeups_by_thread[name] += static_cast<uint64_t>(switches);
  }
  if (ec) return InternalError("cannot list " + (dir / "task").string() + ": " + ec.message());
  return out;
}

void NameThisThread(std::string_view name) {
  char buf[16];
  const size_t n = std::min(name.size(), sizeof buf - 1);
  name.copy(buf, n);
  buf[n] = '\0';
  pthread_setname_np(pthread_self(), buf);
}

}  // namespace allot
