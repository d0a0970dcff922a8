// Writes classic libpcap files (magic a1b2c3d4, microsecond stamps, LINKTYPE_ETHERNET): the
// format net_pcap replays and tshark reads. Used for synthetic traces and test captures.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace braid::trace {

class PcapWriter {
 public:
  // Throws std::runtime_error naming the path when the file cannot be created.
  explicit PcapWriter(const std::string& path, std::uint32_t snap_len = 65535);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  void write(std::span<const std::uint8_t> frame, std::uint64_t timestamp_ns = 0);
  void close();

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
};

}  // namespace braid::trace
