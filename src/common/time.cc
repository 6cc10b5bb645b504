#include "common/time.h"

#include <cstdio>
#include <ctime>

namespace allot {

namespace {

// Days from civil date, after Howard Hinnant's public-domain algorithm.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

std::string Format(int64_t micros, bool with_micros) {
  int64_t secs = micros / 1000000;
  int64_t frac = micros % 1000000;
  if (frac < 0) {
    frac += 1000000;
    secs -= 1;
  }
  int64_t days = secs / 86400;
  int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  char buf[48];
  if (with_micros) {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%06lldZ",
                  static_cast<long long>(y), m, d, static_cast<long long>(rem / 3600),
                  static_cast<long long>(rem / 60 % 60), static_cast<long long>(rem % 60),
                  static_cast<long long>(frac));
  } else {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ",
                  static_cast<long long>(y), m, d, static_cast<long long>(rem / 3600),
                  static_cast<long long>(rem / 60 % 60), static_cast<long long>(rem % 60));
  }
  return buf;
}

bool Digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

}  // namespace

std::string Time::ToRfc3339() const { return Format(unix_micros, false); }
std::string Time::ToRfc3339Micro() const { return Format(unix_micros, true); }

std::optional<Time> Time::Parse(std::string_view s) {
  int y, mo, d, h, mi, se;
  if (!Digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !Digits(s, 5, 2, mo) || s[7] != '-' ||
      !Digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !Digits(s, 11, 2, h) ||
      s[13] != ':' || !Digits(s, 14, 2, mi) || s[16] != ':' || !Digits(s, 17, 2, se)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
  size_t pos = 19;
  int64_t frac = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 6) frac = frac * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 6; ++i) frac *= 10;
  }
  int64_t offset = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!Digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !Digits(s, pos + 4, 2, om)) {
      return std::nullopt;
    }
    offset = (oh * 3600 + om * 60) * (s[pos] == '+' ? 1 : -1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  int64_t secs = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                 h * 3600 + mi * 60 + se - offset;
  return Time{secs * 1000000 + frac};
}

bool Clock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                      SteadyPoint deadline, const std::function<bool()>& pred) {
  if (deadline == SteadyPoint::max()) {
    cv.wait(lock, pred);
    return true;
  }
  return cv.wait_until(lock, deadline, pred);
}

bool Clock::WaitFor(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                    std::chrono::microseconds timeout, const std::function<bool()>& pred) {
  const SteadyPoint now = Steady();
  if (timeout <= std::chrono::microseconds::zero()) return WaitUntil(cv, lock, now, pred);
  // Far enough to overflow the time point: no deadline.
  if (timeout >= std::chrono::duration_cast<std::chrono::microseconds>(SteadyPoint::max() - now)) {
    return WaitUntil(cv, lock, SteadyPoint::max(), pred);
  }
  return WaitUntil(cv, lock, now + timeout, pred);
}

Time RealClock::Now() const {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return Time{std::chrono::duration_cast<std::chrono::microseconds>(now).count()};
}

RealClock& RealClock::Instance() {
  static RealClock clock;
  return clock;
}

Time FakeClock::Now() const {
  std::lock_guard<std::mutex> lock(mu_);
  return now_;
}

std::chrono::steady_clock::time_point FakeClock::Steady() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::chrono::steady_clock::time_point(offset_);
}

bool FakeClock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                          SteadyPoint deadline, const std::function<bool()>& pred) {
  while (!pred()) {
    polls_.fetch_add(1);
    if (Steady() >= deadline) return false;
    cv.wait_for(lock, std::chrono::milliseconds(2));
  }
  return true;
}

void FakeClock::Advance(std::chrono::microseconds d) {
  std::lock_guard<std::mutex> lock(mu_);
  now_.unix_micros += d.count();
  offset_ += d;
}

}  // namespace allot
