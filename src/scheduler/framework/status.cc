#include "scheduler/framework/status.h"

#include <algorithm>

#include "common/status.h"

namespace allot::scheduler {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kSuccess:
      return "Success";
    case Code::kError:
      return "Error";
    case Code::kUnschedulable:
      return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::kWait:
      return "Wait";
    case Code::kSkip:
      return "Skip";
    case Code::kPending:
      return "Pending";
  }
  return "Unknown";
}

Status::Status(Code code, std::string reason) : code_(code) {
  if (!reason.empty()) {
    reasons_ = std::make_shared<const std::vector<std::string>>(1, std::move(reason));
  }
}

Status::Status(Code code, std::vector<std::string> reasons) : code_(code) {
  if (!reasons.empty()) {
    reasons_ = std::make_shared<const std::vector<std::string>>(std::move(reasons));
  }
}

Status Status::FromError(const allot::Status& error) {
  return Status(Code::kError, error.ToString());
}

std::span<const std::string> Status::reasons() const {
  if (!reasons_) return {};
  return {reasons_->data(), reasons_->size()};
}

std::string Status::Message() const {
  std::string out;
  for (const std::string& r : reasons()) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

std::string Status::ToString() const {
  std::string out(CodeName(code_));
  std::string msg = Message();
  if (!msg.empty()) out += ": " + msg;
  if (!plugin_.empty()) {
    out += " (plugin ";
    out += plugin_;
    out += ")";
  }
  return out;
}

bool Status::operator==(const Status& other) const {
  if (code_ != other.code_ || plugin_ != other.plugin_) return false;
  auto a = reasons();
  auto b = other.reasons();
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace allot::scheduler
