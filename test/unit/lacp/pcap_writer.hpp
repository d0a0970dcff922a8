// Minimal classic pcap writer for tests (libpcap format: 24-octet global header, 16-octet
// record headers, link type 1 = Ethernet), so captures can be handed to tshark.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

namespace braid::lacp::test {

class PcapWriter {
 public:
  explicit PcapWriter(const std::string& path) : file_(std::fopen(path.c_str(), "wb")) {
    if (file_ == nullptr) return;
    put32(0xA1B2C3D4);  // magic, microsecond timestamps, written in host order
    put16(2);           // version 2.4
    put16(4);
    put32(0);      // thiszone
    put32(0);      // sigfigs
    put32(65535);  // snaplen
    put32(1);      // LINKTYPE_ETHERNET
  }
  ~PcapWriter() {
    if (file_ != nullptr) std::fclose(file_);
  }
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  bool ok() const { return file_ != nullptr; }

  void write(std::span<const std::uint8_t> frame, std::uint64_t time_ns) {
    if (file_ == nullptr) return;
    put32(static_cast<std::uint32_t>(time_ns / 1'000'000'000));
    put32(static_cast<std::uint32_t>(time_ns % 1'000'000'000 / 1000));
    put32(static_cast<std::uint32_t>(frame.size()));
    put32(static_cast<std::uint32_t>(frame.size()));
    std::fwrite(frame.data(), 1, frame.size(), file_);
  }

 private:
  void put16(std::uint16_t value) { std::fwrite(&value, sizeof value, 1, file_); }
  void put32(std::uint32_t value) { std::fwrite(&value, sizeof value, 1, file_); }

  std::FILE* file_;
};

}  // namespace braid::lacp::test
