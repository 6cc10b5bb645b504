// The result of running a scheduling-framework plugin: a code, human-readable reasons and the
// plugin that produced it (k8s.io/kube-scheduler/framework Status).
//
// The codes, and what the scheduler does with each:
//  - kSuccess: the plugin is satisfied; the cycle goes on.
//  - kError: an internal error (a bug, a failed API call). The pod is requeued to the backoff
//    queue; no node is blamed and the reasons are not shown as per-node reasons.
//  - kUnschedulable: the pod does not fit now, but might after a cluster event (another pod
//    leaves, a node is added). PostFilter (preemption) may try to make room. The pod goes to the
//    unschedulable pods and comes back when an event its rejecting plugins registered for
//    happens (queueing hints), or after the periodic flush.
//  - kUnschedulableAndUnresolvable: as kUnschedulable, but preemption cannot help on this node
//    (its labels, taints or size rule it out). Requeueing is still event-driven.
//  - kWait: from Permit: the pod holds its reservation and waits until a plugin allows or
//    rejects it, or the timeout passes. From PreBind: the plugin finishes later without holding a
//    binding worker (AwaitPreBind; DynamicResources waiting for binding conditions).
//  - kSkip: from PreFilter / PreScore: the plugin has nothing to do for this pod, so its Filter /
//    Score is not called. From Bind: this binder does not handle the pod; the next one is asked.
//  - kPending: the pod waits for something outside the scheduler (e.g. a driver). Like
//    kUnschedulable, but the pod is not backed off when it is requeued.
//
// A Status is cheap to copy: code + plugin name + a shared immutable list of reasons. Success
// holds no allocation. Failure statuses that never change (e.g. "node(s) were unschedulable")
// can be built once and copied. This is not allot::Status (an API error); inside namespace
// allot::scheduler the name Status means this class.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace allot {
class Status;
}  // namespace allot

namespace allot::scheduler {

enum class Code : uint8_t {
  kSuccess = 0,
  kError,
  kUnschedulable,
  kUnschedulableAndUnresolvable,
  kWait,
  kSkip,
  kPending,
};

// "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip",
// "Pending" (the metric label values Kubernetes uses).
std::string_view CodeName(Code code);

class Status {
 public:
  // Success.
  Status() = default;
  Status(Code code, std::string reason);
  Status(Code code, std::vector<std::string> reasons);

  static Status Success() { return Status(); }
  static Status Error(std::string message) { return Status(Code::kError, std::move(message)); }
  static Status Skip() { return Status(Code::kSkip, std::vector<std::string>{}); }
  // An API or internal error as a framework Error.
  static Status FromError(const allot::Status& error);

  Code code() const { return code_; }
  bool IsSuccess() const { return code_ == Code::kSuccess; }
  bool IsSkip() const { return code_ == Code::kSkip; }
  bool IsWait() const { return code_ == Code::kWait; }
  bool IsError() const { return code_ == Code::kError; }
  // Unschedulable or UnschedulableAndUnresolvable: the pod was rejected by a plugin.
  bool IsRejected() const {
    return code_ == Code::kUnschedulable || code_ == Code::kUnschedulableAndUnresolvable ||
           code_ == Code::kPending;
  }

  std::span<const std::string> reasons() const;
  // The reasons joined with ", " (Kubernetes' Status.Message()).
  std::string Message() const;

  // The plugin that returned this status ("" when none). The name must outlive the status:
  // plugins return names with static storage.
  std::string_view plugin() const { return plugin_; }
  Status& WithPlugin(std::string_view plugin) {
    plugin_ = plugin;
    return *this;
  }

  // "Unschedulable: Insufficient cpu (plugin NodeResourcesFit)", for logs and tests.
  std::string ToString() const;

  bool operator==(const Status& other) const;

 private:
  Code code_ = Code::kSuccess;
  std::string_view plugin_;
  std::shared_ptr<const std::vector<std::string>> reasons_;
};

}  // namespace allot::scheduler
