#include "node/addresses.h"

#include <arpa/inet.h>

namespace allot::node {

namespace {
constexpr uint32_t kNodeBase = 0xAC100000;  // 172.16.0.0
constexpr uint32_t kPodBase = 0x0A000000;   // 10.0.0.0
constexpr int kFirstHost = 1;
constexpr int kLastHost = 254;

uint32_t PodNetwork(int64_t index) {
  return kPodBase + (static_cast<uint32_t>(index % kMaxNodes) << 8);
}
}  // namespace

std::string FormatIpv4(uint32_t addr) {
  return std::to_string(addr >> 24) + "." + std::to_string((addr >> 16) & 255) + "." +
         std::to_string((addr >> 8) & 255) + "." + std::to_string(addr & 255);
}

std::optional<uint32_t> ParseIpv4(std::string_view text) {
  std::string s(text);
  in_addr a{};
  if (inet_pton(AF_INET, s.c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

std::string NodeInternalIp(int64_t index) {
  return FormatIpv4(kNodeBase + static_cast<uint32_t>(index % kMaxNodes) + 1);
}

std::string NodePodCidr(int64_t index) { return FormatIpv4(PodNetwork(index)) + "/24"; }

PodIpPool::PodIpPool(int64_t node_index) : base_(PodNetwork(node_index)) {}

std::optional<std::string> PodIpPool::Allocate() {
  for (int n = 0; n < kLastHost; ++n) {
    int host = next_;
    next_ = next_ >= kLastHost ? kFirstHost : next_ + 1;
    if (!used_[host]) {
      used_[host] = true;
      return FormatIpv4(base_ + static_cast<uint32_t>(host));
    }
  }
  return std::nullopt;
}

int PodIpPool::Offset(std::string_view ip) const {
  std::optional<uint32_t> a = ParseIpv4(ip);
  if (!a || (*a & ~0xFFu) != base_) return 0;
  int host = static_cast<int>(*a & 0xFF);
  return host >= kFirstHost && host <= kLastHost ? host : 0;
}

bool PodIpPool::Claim(std::string_view ip) {
  int host = Offset(ip);
  if (host == 0 || used_[host]) return false;
  used_[host] = true;
  return true;
}

void PodIpPool::Release(std::string_view ip) {
  int host = Offset(ip);
  if (host != 0) used_[host] = false;
}

}  // namespace allot::node
