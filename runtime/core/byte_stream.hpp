// Byte streams in host order for what xpurt writes and reads back itself:
// disk cache entries and the JIT worker's messages. The reader checks every bound; an overrun
// marks it failed instead of reading past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace xpurt::core {

class Writer {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) { raw(&v, sizeof v); }
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void str(const std::string &s) {
    u64(s.size());
    out_.append(s);
  }
  void raw(const void *p, size_t n) { out_.append(static_cast<const char *>(p), n); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool atEnd() const { return at_ == in_.size(); }
  uint8_t u8() { return get<uint8_t>(); }
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  std::string str() {
    uint64_t n = u64();
    if (!ok_ || n > in_.size() - at_) return fail(), std::string();
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }
  std::string_view rest() const { return in_.substr(at_); }

 private:
  template <class T>
  T get() {
    T v{};
    if (!ok_ || sizeof v > in_.size() - at_) return fail(), v;
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  void fail() { ok_ = false; }
  std::string_view in_;
  size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace xpurt::core
