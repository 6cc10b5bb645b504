// The protobuf wire format (protobuf.dev/programming-guides/encoding): records of a field
// number and a wire type, varints, fixed-width numbers and length-delimited bytes. Knows nothing
// of messages; api/codec/protobuf_reflect.h maps API structs onto it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace allot::api::protobuf {

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Appends records to a string. Length-delimited fields whose length is not known in advance
// (nested messages) are written with BeginNested/EndNested, which moves the content when its
// length needs more than one byte.
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  void Varint(uint64_t v);
  void Tag(int number, WireType type) { Varint(static_cast<uint64_t>(number) << 3 | type); }
  void VarintField(int number, uint64_t v) {
    Tag(number, kVarint);
    Varint(v);
  }
  // Negative values are sign-extended to ten bytes, as protobuf's int32 and int64 are.
  void IntField(int number, int64_t v) { VarintField(number, static_cast<uint64_t>(v)); }
  void Fixed64Field(int number, uint64_t v);
  void BytesField(int number, std::string_view bytes) {
    Tag(number, kLengthDelimited);
    Varint(bytes.size());
    out_.append(bytes);
  }

  // Starts field `number` as a nested message; returns a mark for EndNested.
  size_t BeginNested(int number);
  // Closes the nested message begun at `mark`. With `drop_if_empty`, an empty message is
  // removed again, tag included (an unset non-pointer struct reads back the same).
  void EndNested(size_t mark, bool drop_if_empty);

  std::string& out() { return out_; }

 private:
  std::string& out_;
};

// One record read back: its field number, wire type, and value (a varint or fixed number, or
// the bytes of a length-delimited field).
struct Record {
  int number = 0;
  WireType type = kVarint;
  uint64_t value = 0;
  std::string_view bytes;
};

// Reads the records of one message in order, without copying. Next() is false at the end and
// on malformed input; ok() tells the two apart.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool Next(Record& r);
  bool ok() const { return ok_; }
  // Reads one varint from the front of `in` (packed repeated fields); false when truncated.
  static bool ReadVarint(std::string_view& in, uint64_t& out);

 private:
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace allot::api::protobuf
