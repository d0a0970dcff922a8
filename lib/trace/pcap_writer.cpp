#include "trace/pcap_writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace braid::trace {
namespace {

constexpr std::uint32_t kPcapMagicMicroseconds = 0xa1b2c3d4;
constexpr std::uint16_t kPcapVersionMajor = 2;
constexpr std::uint16_t kPcapVersionMinor = 4;
constexpr std::uint32_t kLinktypeEthernet = 1;

struct GlobalHeader {
  std::uint32_t magic;
  std::uint16_t version_major;
  std::uint16_t version_minor;
  std::int32_t this_zone;
  std::uint32_t sig_figs;
  std::uint32_t snap_len;
  std::uint32_t link_type;
};

struct RecordHeader {
  std::uint32_t seconds;
  std::uint32_t microseconds;
  std::uint32_t captured_len;
  std::uint32_t original_len;
};

}  // namespace

PcapWriter::PcapWriter(const std::string& path, std::uint32_t snap_len) : path_(path) {
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) {
    throw std::runtime_error("pcap: cannot create " + path + ": " + std::strerror(errno));
  }
  // Written in host order: readers detect the byte order from the magic number.
  const GlobalHeader header{
      kPcapMagicMicroseconds, kPcapVersionMajor, kPcapVersionMinor, 0, 0, snap_len,
      kLinktypeEthernet};
  std::fwrite(&header, sizeof header, 1, file_);
}

PcapWriter::~PcapWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void PcapWriter::write(std::span<const std::uint8_t> frame, std::uint64_t timestamp_ns) {
  const auto length = static_cast<std::uint32_t>(frame.size());
  const RecordHeader record{static_cast<std::uint32_t>(timestamp_ns / 1'000'000'000),
                            static_cast<std::uint32_t>(timestamp_ns / 1000 % 1'000'000), length,
                            length};
  std::fwrite(&record, sizeof record, 1, file_);
  std::fwrite(frame.data(), 1, frame.size(), file_);
}

void PcapWriter::close() {
  if (file_ == nullptr) return;
  const bool failed = std::ferror(file_) != 0;
  std::fclose(file_);
  file_ = nullptr;
  if (failed) throw std::runtime_error("pcap: write to " + path_ + " failed");
}

}  // namespace braid::trace
