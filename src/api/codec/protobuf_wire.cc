#include "api/codec/protobuf_wire.h"

namespace allot::api::protobuf {

namespace {

int VarintSize(uint64_t v) {
  int n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

}  // namespace

void Writer::Varint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void Writer::Fixed64Field(int number, uint64_t v) {
  Tag(number, kFixed64);
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>(v >> (8 * i)));
}

size_t Writer::BeginNested(int number) {
  size_t mark = out_.size();
  Tag(number, kLengthDelimited);
  out_.push_back('\0');  // one byte of length, widened in EndNested when needed
  return mark;
}

void Writer::EndNested(size_t mark, bool drop_if_empty) {
  // The tag is at `mark`; the one length byte is the last byte before the content.
  size_t length_at = mark;
  while (static_cast<uint8_t>(out_[length_at]) & 0x80) ++length_at;  // skip the tag varint
  ++length_at;
  const size_t content_at = length_at + 1;
  const size_t length = out_.size() - content_at;
  if (length == 0 && drop_if_empty) {
    out_.resize(mark);
    return;
  }
  const int width = VarintSize(length);
  if (width > 1) out_.insert(content_at, static_cast<size_t>(width - 1), '\0');
  uint64_t v = length;
  for (int i = 0; i < width; ++i) {
    out_[length_at + i] = static_cast<char>((v & 0x7f) | (i + 1 < width ? 0x80 : 0));
    v >>= 7;
  }
}

bool Reader::ReadVarint(std::string_view& in, uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
    const auto b = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    out |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

bool Reader::Next(Record& r) {
  if (in_.empty() || !ok_) return false;
  uint64_t key = 0;
  ok_ = false;
  if (!ReadVarint(in_, key) || key >> 3 == 0 || key >> 3 > 536870911) return false;
  r.number = static_cast<int>(key >> 3);
  r.type = static_cast<WireType>(key & 7);
  r.bytes = {};
  switch (r.type) {
    case kVarint:
      if (!ReadVarint(in_, r.value)) return false;
      break;
    case kFixed64:
    case kFixed32: {
      const size_t width = r.type == kFixed64 ? 8 : 4;
      if (in_.size() < width) return false;
      r.value = 0;
      for (size_t i = 0; i < width; ++i) {
        r.value |= static_cast<uint64_t>(static_cast<uint8_t>(in_[i])) << (8 * i);
      }
      in_.remove_prefix(width);
      break;
    }
    case kLengthDelimited: {
      uint64_t length = 0;
      if (!ReadVarint(in_, length) || length > in_.size()) return false;
      r.bytes = in_.substr(0, length);
      in_.remove_prefix(length);
      break;
    }
    default:
      return false;  // groups (3, 4) and reserved types are not used by Kubernetes
  }
  ok_ = true;
  return true;
}

}  // namespace allot::api::protobuf
