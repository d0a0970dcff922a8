#include "linkemu/link_flapper.hpp"

#include <rte_ethdev.h>

#include <stdexcept>
#include <string>

namespace braid::linkemu {

LinkFlapper::LinkFlapper(std::uint16_t port_id, FlapPattern pattern, std::uint64_t start_ns)
    : port_id_(port_id), pattern_(pattern), start_ns_(start_ns) {
  if (pattern_.down_ns == 0 || pattern_.down_ns >= pattern_.period_ns)
    throw std::invalid_argument("linkemu: flap pattern: down time " +
                                std::to_string(pattern_.down_ns) +
                                " ns must be above 0 and below "
                                "the period (" +
                                std::to_string(pattern_.period_ns) + " ns)");
}

LinkFlapper::~LinkFlapper() {
  if (!up_) rte_eth_dev_set_link_up(port_id_);
}

bool LinkFlapper::poll(std::uint64_t now_ns) {
  const bool up = pattern_.carrier_up(start_ns_, now_ns);
  if (up == up_) return false;
  const int rc = up ? rte_eth_dev_set_link_up(port_id_) : rte_eth_dev_set_link_down(port_id_);
  if (rc != 0)
    throw std::runtime_error("linkemu: port " + std::to_string(port_id_) + ": cannot set link " +
                             (up ? "up" : "down") + " (" + std::to_string(rc) + ")");
  up_ = up;
  if (!up) {
    ++flaps_;
    last_down_ns_ = now_ns;
  }
  return true;
}

}  // namespace braid::linkemu
