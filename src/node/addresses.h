// Addresses of simulated nodes and their pods.
//
// Node k (its global index: first_index + i) gets
//   - InternalIP 172.16.0.0 + k + 1 (inside 172.16.0.0/12), and
//   - podCIDR 10.(k / 256).(k % 256).0/24, whose .1 to .254 are handed to its pods.
// So one process (or several with disjoint index ranges) can simulate up to kMaxNodes nodes
// without two nodes or pods sharing an address.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace allot::node {

inline constexpr int64_t kMaxNodes = 65536;

std::string NodeInternalIp(int64_t index);
std::string NodePodCidr(int64_t index);
// "a.b.c.d" for a host-order IPv4 address.
std::string FormatIpv4(uint32_t addr);
// Host-order IPv4 address of dotted text, or nullopt.
std::optional<uint32_t> ParseIpv4(std::string_view text);

// The pod IPs of one node's /24: hands out .1 to .254, lowest free first after the last one
// handed out (so a released address is not reused at once). Not thread-safe.
class PodIpPool {
 public:
  explicit PodIpPool(int64_t node_index);
  // A free address, or nullopt when all 254 are in use.
  std::optional<std::string> Allocate();
  // Marks `ip` used (a pod found Running with it, e.g. after a restart). False when it is not
  // in this pool's range or already used.
  bool Claim(std::string_view ip);
  // Returns `ip` to the pool; ignores addresses outside the range.
  void Release(std::string_view ip);
  int used() const { return static_cast<int>(used_.count()); }

 private:
  // Host offset (1..254) of `ip` within this /24, or 0.
  int Offset(std::string_view ip) const;

  uint32_t base_;
  std::bitset<256> used_;
  int next_ = 1;
};

}  // namespace allot::node
