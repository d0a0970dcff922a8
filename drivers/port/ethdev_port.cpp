#include "port/ethdev_port.hpp"

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include <cstring>

#include "common/plural.hpp"
#include "config/devargs.hpp"
#include "port/virtual_cable.hpp"

namespace braid::drivers {
namespace {

// Toeplitz key whose 16-bit period makes hash(src, dst) == hash(dst, src) (Woo & Park,
// "Scalable TCP Session Monitoring with Symmetric Receive-side Scaling").
constexpr std::uint8_t kSymmetricKeyPattern[2] = {0x6d, 0x5a};
constexpr std::size_t kDefaultRssKeyLength = 40;

struct RssField {
  const char* name;
  std::uint64_t functions;
};

constexpr RssField kRssFields[] = {
    {"ipv4", RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_OTHER},
    {"ipv6", RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_FRAG_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_OTHER},
    {"tcp", RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_NONFRAG_IPV6_TCP},
    {"udp", RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP},
    {"sctp", RTE_ETH_RSS_NONFRAG_IPV4_SCTP | RTE_ETH_RSS_NONFRAG_IPV6_SCTP},
    {"l2", RTE_ETH_RSS_L2_PAYLOAD},
    {"ipv6-ex", RTE_ETH_RSS_IPV6_EX | RTE_ETH_RSS_IPV6_TCP_EX | RTE_ETH_RSS_IPV6_UDP_EX},
};

std::string device_name(const std::string& device) {
  return device.substr(0, device.find(','));
}

}  // namespace

EthdevPort::EthdevPort(const config::PortConfig& config) : config_(config) {
  const std::string name = device_name(config_.device);
  if (is_cable_device(config_.device)) {
    try {
      port_id_ = open_cable_end(config_.device);
    } catch (const std::runtime_error& error) {
      throw PortError("port \"" + config_.name + "\": " + error.what());
    }
  } else if (rte_eth_dev_get_port_by_name(name.c_str(), &port_id_) != 0) {
    const int rc = rte_dev_probe(config_.device.c_str());
    if (rc < 0) fail("cannot probe device \"" + config_.device + "\"", -rc);
    if (rte_eth_dev_get_port_by_name(name.c_str(), &port_id_) != 0) {
      fail("device \"" + config_.device + "\" probed but no ethdev named \"" + name + "\" appeared",
           ENODEV);
    }
    probed_by_us_ = true;
  }
  rte_eth_dev_info info{};
  if (const int rc = rte_eth_dev_info_get(port_id_, &info); rc != 0)
    fail("cannot read device info", -rc);
  driver_ = info.driver_name != nullptr ? info.driver_name : "?";
  const bool advertises_lsc =
      info.dev_flags != nullptr && (*info.dev_flags & RTE_ETH_DEV_INTR_LSC) != 0;
  // A kernel interface whose link the PMD does not report: net_af_packet's link is "up" from
  // start to stop. PMDs with link interrupts (net_tap, mlx5) report it themselves.
  if (!advertises_lsc && info.if_index != 0 && driver_ == "net_af_packet") {
    kernel_ifindex_ = static_cast<int>(info.if_index);
  }
}

EthdevPort::~EthdevPort() {
  if (started_) stop();
  if (probed_by_us_) {
    rte_eth_dev_close(port_id_);
    // Best effort at shutdown: a vdev that cannot be removed is released by rte_eal_cleanup.
    const std::string name = device_name(config_.device);
    rte_eal_hotplug_remove("vdev", name.c_str());
  }
}

void EthdevPort::fail(const std::string& what, int error) const {
  throw PortError("port \"" + config_.name + "\" (" + config_.device + "): " + what + ": " +
                  std::strerror(error));
}

int EthdevPort::socket() const {
  return rte_eth_dev_socket_id(port_id_);
}

std::uint64_t EthdevPort::rss_hash_functions(std::uint64_t supported) {
  std::uint64_t wanted = 0;
  for (const std::string& field : config_.rss.hash_fields) {
    for (const RssField& known : kRssFields) {
      if (field == known.name) wanted |= known.functions;
    }
  }
  const std::uint64_t usable = wanted & supported;
  // With one data queue RSS only serves to keep data off the slow queue: nothing to report.
  if (usable != wanted && config_.rx_queues > 1) {
    notes_.push_back("RSS: device " + driver_ + " hashes only part of the requested fields " +
                     "(requested 0x" + std::to_string(wanted) + ", using 0x" +
                     std::to_string(usable) + ")");
  }
  return usable;
}

void EthdevPort::configure(const Queues& queues, rte_mempool* pool) {
  rte_eth_dev_info info{};
  if (const int rc = rte_eth_dev_info_get(port_id_, &info); rc != 0)
    fail("cannot read device info", -rc);
  tx_queues_ = queues.tx;
  slow_rx_descriptors_ = queues.slow_rx_descriptors;
  single_pool_tx_ = queues.single_pool_tx;
  if (is_cable_device(config_.device) && config_.rx_queues > 1) {
    fail("a virtual cable end has one RX queue; use rx_queues: 1", EINVAL);
  }
  if (config_.rx_queues > info.max_rx_queues) {
    fail("rx_queues " + std::to_string(config_.rx_queues) + " exceeds the device maximum " +
             std::to_string(info.max_rx_queues),
         EINVAL);
  }
  if (tx_queues_ > info.max_tx_queues) {
    fail(config::tx_queue_shortfall(tx_queues_, queues.control_tx_descriptors != 0,
                                    info.max_tx_queues, config_.device),
         EINVAL);
  }
  bool with_slow_queue = slow_rx_descriptors_ != 0;
  if (with_slow_queue && config_.rx_queues + 1 > info.max_rx_queues) {
    no_slow_queue_reason_ = "the device has " + braid::counted(info.max_rx_queues, "RX queue") +
                            ", none left after " + braid::counted(config_.rx_queues, "data queue");
    with_slow_queue = false;
  }

  if (config_.rx_queues > 1 || with_slow_queue) {
    rss_functions_ = rss_hash_functions(info.flow_type_rss_offloads);
    // Drivers without RSS that need none: virtio_user on vhost-net, whose kernel multi-queue
    // tap spreads flows over its queues itself (tun_select_queue hashes each flow to one);
    // net_ring, each RX queue a ring of its own whose sender picks it; and net_pcap, whose every
    // RX queue replays a file of its own (rx_pcap= given once a queue).
    const bool queues_fed_apart =
        driver_ == "net_virtio_user" || driver_ == "net_ring" || driver_ == "net_pcap";
    if (config_.rx_queues > 1 && rss_functions_ == 0 && !queues_fed_apart) {
      fail("rx_queues " + std::to_string(config_.rx_queues) + " needs RSS, which driver " +
               driver_ + " does not offer for the configured hash fields; use rx_queues: 1",
           ENOTSUP);
    }
    const std::size_t key_length =
        info.hash_key_size != 0 ? info.hash_key_size : kDefaultRssKeyLength;
    switch (config_.rss.key_kind) {
      case config::RssKey::kDefault:
        break;  // the PMD's own key
      case config::RssKey::kSymmetric:
        rss_key_.resize(key_length);
        for (std::size_t i = 0; i < key_length; ++i)
          rss_key_[i] = kSymmetricKeyPattern[i % 2];
        break;
      case config::RssKey::kExplicit:
        if (config_.rss.key.size() != key_length) {
          fail("rss.key has " + std::to_string(config_.rss.key.size()) + " bytes but " + driver_ +
                   " takes " + std::to_string(key_length),
               EINVAL);
        }
        rss_key_ = config_.rss.key;
        break;
    }
  }
  rx_descriptors_ = config_.rx_descriptors;
  tx_descriptors_ = config_.tx_descriptors;
  if (const int rc = rte_eth_dev_adjust_nb_rx_tx_desc(port_id_, &rx_descriptors_, &tx_descriptors_);
      rc != 0) {
    fail("cannot fit descriptor counts to the device", -rc);
  }
  control_tx_descriptors_ = queues.control_tx_descriptors;
  if (control_tx_descriptors_ != 0) {
    if (const int rc =
            rte_eth_dev_adjust_nb_rx_tx_desc(port_id_, nullptr, &control_tx_descriptors_);
        rc != 0) {
      fail("cannot fit the control TX queue's descriptor count to the device", -rc);
    }
  }
  if (rx_descriptors_ != config_.rx_descriptors || tx_descriptors_ != config_.tx_descriptors) {
    notes_.push_back("descriptors adjusted to the device's limits: rx " +
                     std::to_string(rx_descriptors_) + ", tx " + std::to_string(tx_descriptors_));
  }
  set_up_queues(with_slow_queue, info, pool);
}

// RSS spreads over the data queues when there are several; with a slow queue it is on even
// for one data queue, so that its redirection table can keep data off the slow queue.
rte_eth_conf EthdevPort::device_conf(bool with_slow_queue, const rte_eth_dev_info& info) {
  rte_eth_conf conf{};
  if (rss_functions_ != 0 && (config_.rx_queues > 1 || with_slow_queue)) {
    conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
    conf.rx_adv_conf.rss_conf.rss_hf = rss_functions_;
    if (!rss_key_.empty()) {
      conf.rx_adv_conf.rss_conf.rss_key = rss_key_.data();
      conf.rx_adv_conf.rss_conf.rss_key_len = static_cast<std::uint8_t>(rss_key_.size());
    }
  }
  // Fast free returns a burst's mbufs to the pool of its first one: only where every queue sees
  // one pool (two sockets mean two pools, and a port receiving from both would corrupt them).
  fast_free_ = single_pool_tx_ && (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE) != 0;
  if (fast_free_) conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
  // Link-status interrupts where the PMD has them: failover then starts at the event, not at
  // the next link poll.
  lsc_interrupts_ = info.dev_flags != nullptr && (*info.dev_flags & RTE_ETH_DEV_INTR_LSC) != 0;
  conf.intr_conf.lsc = lsc_interrupts_ ? 1 : 0;
  return conf;
}

void EthdevPort::set_up_queues(bool with_slow_queue, const rte_eth_dev_info& info,
                               rte_mempool* pool) {
  const rte_eth_conf conf = device_conf(with_slow_queue, info);
  const auto rx_queues = static_cast<std::uint16_t>(config_.rx_queues + (with_slow_queue ? 1 : 0));
  if (const int rc = rte_eth_dev_configure(port_id_, rx_queues, tx_queues_, &conf); rc != 0) {
    fail("rte_eth_dev_configure failed", -rc);
  }
  const int socket_id = socket();
  for (std::uint16_t q = 0; q < config_.rx_queues; ++q) {
    if (const int rc =
            rte_eth_rx_queue_setup(port_id_, q, rx_descriptors_, socket_id, nullptr, pool);
        rc != 0) {
      fail("cannot set up RX queue " + std::to_string(q), -rc);
    }
  }
  if (with_slow_queue) {
    std::uint16_t descriptors = slow_rx_descriptors_;
    if (const int rc = rte_eth_dev_adjust_nb_rx_tx_desc(port_id_, &descriptors, nullptr); rc != 0)
      fail("cannot fit the slow queue's descriptor count to the device", -rc);
    if (const int rc = rte_eth_rx_queue_setup(port_id_, config_.rx_queues, descriptors, socket_id,
                                              nullptr, pool);
        rc != 0) {
      fail("cannot set up the slow-protocol RX queue " + std::to_string(config_.rx_queues), -rc);
    }
  }
  rte_eth_txconf txconf = info.default_txconf;
  txconf.offloads = conf.txmode.offloads;
  for (std::uint16_t q = 0; q < tx_queues_; ++q) {
    const bool control = control_tx_descriptors_ != 0 && q + 1 == tx_queues_;
    const std::uint16_t descriptors = control ? control_tx_descriptors_ : tx_descriptors_;
    if (const int rc = rte_eth_tx_queue_setup(port_id_, q, descriptors, socket_id, &txconf);
        rc != 0) {
      fail("cannot set up " + std::string(control ? "the control " : "") + "TX queue " +
               std::to_string(q),
           -rc);
    }
  }
  if (const int rc = rte_eth_dev_set_mtu(port_id_, config_.mtu); rc != 0 && rc != -ENOTSUP) {
    fail("cannot set MTU " + std::to_string(config_.mtu), -rc);
  } else if (rc == -ENOTSUP && config_.mtu != RTE_ETHER_MTU) {
    notes_.push_back("driver " + driver_ + " cannot set the MTU; mtu " +
                     std::to_string(config_.mtu) + " ignored");
  }
  has_slow_queue_ = with_slow_queue;
  if (!with_slow_queue) return;
  rss_unrestricted_reason_ = conf.rxmode.mq_mode == RTE_ETH_MQ_RX_RSS
                                 ? restrict_rss_to_data_queues(port_id_, config_.rx_queues)
                                 : "RSS is off (the device hashes none of the configured fields)";
}

void EthdevPort::start() {
  if (const int rc = rte_eth_dev_start(port_id_); rc != 0) fail("cannot start", -rc);
  started_ = true;
  // Promiscuous/allmulti are accepted by every PMD braid runs on; -ENOTSUP only means the PMD
  // always receives everything (rings, null), which is what was asked.
  const int promisc = config_.promiscuous ? rte_eth_promiscuous_enable(port_id_)
                                          : rte_eth_promiscuous_disable(port_id_);
  if (promisc != 0 && promisc != -ENOTSUP) fail("cannot set promiscuous mode", -promisc);
  const int allmulti = config_.allmulti ? rte_eth_allmulticast_enable(port_id_)
                                        : rte_eth_allmulticast_disable(port_id_);
  if (allmulti != 0 && allmulti != -ENOTSUP) fail("cannot set all-multicast mode", -allmulti);
  if (steer_on_start_) {
    if (const std::string error = install_steering(); !error.empty()) {
      fail("cannot restore Slow Protocols steering: " + error, EIO);
    }
  }
}

void EthdevPort::stop() {
  if (!started_) return;
  steering_.reset();
  rte_eth_dev_stop(port_id_);
  started_ = false;
}

std::string EthdevPort::set_link(bool up) {
  const int rc = up ? rte_eth_dev_set_link_up(port_id_) : rte_eth_dev_set_link_down(port_id_);
  return rc == 0 ? "" : std::strerror(-rc);
}

std::string EthdevPort::steer_slow_protocols() {
  if (!has_slow_queue_ || slow_queue_to_workers_) {
    return no_slow_queue_reason_.empty() ? "no slow-protocol RX queue was configured"
                                         : no_slow_queue_reason_;
  }
  if (!started_) return "the port is not started";
  std::string error = install_steering();
  steer_on_start_ = error.empty();
  return error;
}

std::string EthdevPort::install_steering() {
  const SteeringRequest request{.port_id = port_id_,
                                .data_queues = config_.rx_queues,
                                .slow_queue = config_.rx_queues,
                                .rss_unrestricted_reason = rss_unrestricted_reason_,
                                .rss_hash_functions = rss_functions_,
                                .rss_key = rss_key_};
  SteeringResult result = is_cable_device(config_.device)
                              ? steer_cable_slow_protocols(config_.device, request)
                              : steer_with_rte_flow(request);
  steering_ = std::move(result.steering);
  return result.error;
}

void EthdevPort::hand_slow_queue_to_workers() {
  if (has_slow_queue_ && !steering_) slow_queue_to_workers_ = true;
}

std::optional<std::uint16_t> EthdevPort::slow_rx_queue() const {
  if (!steering_) return std::nullopt;
  return config_.rx_queues;
}

std::string EthdevPort::slow_steering_description() const {
  return steering_ ? steering_->description() : "";
}

}  // namespace braid::drivers
