#include "port/slow_steering.hpp"

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include <vector>

#include "flow/flow_key.hpp"

namespace braid::drivers {
namespace {

// rte_flow: a lower value is matched first. Slow Protocols frames must win over the catch-all.
constexpr std::uint32_t kSlowRulePriority = 0;
constexpr std::uint32_t kDataRulePriority = 1;

// "rte_flow_create: <the PMD's message> (<errno text>)"; the errno text once when the PMD gave
// nothing more (rte_flow's own ENOSYS for PMDs without flow support is just that).
std::string flow_error_text(const char* call, int rc, const rte_flow_error& error) {
  const std::string reason = rte_strerror(rc < 0 ? -rc : rc);
  if (error.message == nullptr || reason == error.message) return std::string(call) + ": " + reason;
  return std::string(call) + ": " + error.message + " (" + reason + ")";
}

// Validates, then creates; on failure `error` says which call failed and the PMD's message.
rte_flow* create_rule(std::uint16_t port_id, std::uint32_t priority, const rte_flow_item* pattern,
                      const rte_flow_action* actions, std::string& error) {
  rte_flow_attr attr{};
  attr.priority = priority;
  attr.ingress = 1;
  rte_flow_error flow_error{};
  if (const int rc = rte_flow_validate(port_id, &attr, pattern, actions, &flow_error); rc != 0) {
    error = flow_error_text("rte_flow_validate", rc, flow_error);
    return nullptr;
  }
  flow_error = {};
  rte_flow* rule = rte_flow_create(port_id, &attr, pattern, actions, &flow_error);
  if (rule == nullptr) error = flow_error_text("rte_flow_create", rte_errno, flow_error);
  return rule;
}

class RteFlowSteering : public SlowSteering {
 public:
  RteFlowSteering(std::uint16_t port_id, rte_flow* slow_rule, rte_flow* data_rule)
      : port_id_(port_id), slow_rule_(slow_rule), data_rule_(data_rule) {}
  ~RteFlowSteering() override {
    rte_flow_error error{};
    if (data_rule_ != nullptr) rte_flow_destroy(port_id_, data_rule_, &error);
    rte_flow_destroy(port_id_, slow_rule_, &error);
  }
  RteFlowSteering(const RteFlowSteering&) = delete;
  RteFlowSteering& operator=(const RteFlowSteering&) = delete;

  std::string description() const override {
    return data_rule_ != nullptr ? "rte_flow, data kept off it by a catch-all rule"
                                 : "rte_flow, RSS over the data queues";
  }

 private:
  std::uint16_t port_id_;
  rte_flow* slow_rule_;
  rte_flow* data_rule_;
};

rte_flow* create_slow_rule(const SteeringRequest& request, std::string& error) {
  rte_flow_item_eth spec{};
  rte_flow_item_eth mask{};
  spec.hdr.ether_type = rte_cpu_to_be_16(flow::kEtherTypeSlowProtocols);
  mask.hdr.ether_type = RTE_BE16(0xffff);
  const rte_flow_item pattern[] = {
      {.type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &spec, .last = nullptr, .mask = &mask},
      {.type = RTE_FLOW_ITEM_TYPE_END, .spec = nullptr, .last = nullptr, .mask = nullptr},
  };
  const rte_flow_action_queue queue{.index = request.slow_queue};
  const rte_flow_action actions[] = {
      {.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue},
      {.type = RTE_FLOW_ACTION_TYPE_END, .conf = nullptr},
  };
  return create_rule(request.port_id, kSlowRulePriority, pattern, actions, error);
}

// Everything the slow rule did not take goes to the data queues: one queue directly, several
// through an RSS action with the port's own hash functions and key.
rte_flow* create_data_rule(const SteeringRequest& request, std::string& error) {
  const rte_flow_item pattern[] = {
      {.type = RTE_FLOW_ITEM_TYPE_ETH, .spec = nullptr, .last = nullptr, .mask = nullptr},
      {.type = RTE_FLOW_ITEM_TYPE_END, .spec = nullptr, .last = nullptr, .mask = nullptr},
  };
  const rte_flow_action_queue queue{.index = 0};
  std::vector<std::uint16_t> data_queues(request.data_queues);
  for (std::uint16_t q = 0; q < request.data_queues; ++q)
    data_queues[q] = q;
  rte_flow_action_rss rss{};
  rss.func = RTE_ETH_HASH_FUNCTION_DEFAULT;
  rss.types = request.rss_hash_functions;
  rss.key_len = static_cast<std::uint32_t>(request.rss_key.size());
  rss.key = request.rss_key.empty() ? nullptr : request.rss_key.data();
  rss.queue_num = request.data_queues;
  rss.queue = data_queues.data();
  const bool spread = request.data_queues > 1;
  const rte_flow_action actions[] = {
      spread ? rte_flow_action{.type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss}
             : rte_flow_action{.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue},
      {.type = RTE_FLOW_ACTION_TYPE_END, .conf = nullptr},
  };
  return create_rule(request.port_id, kDataRulePriority, pattern, actions, error);
}

}  // namespace

std::string restrict_rss_to_data_queues(std::uint16_t port_id, std::uint16_t data_queues) {
  rte_eth_dev_info info{};
  if (const int rc = rte_eth_dev_info_get(port_id, &info); rc != 0) {
    return std::string("cannot read device info: ") + rte_strerror(-rc);
  }
  if (info.reta_size == 0) return "the device has no RSS redirection table";
  std::vector<rte_eth_rss_reta_entry64> table((info.reta_size + RTE_ETH_RETA_GROUP_SIZE - 1) /
                                              RTE_ETH_RETA_GROUP_SIZE);
  for (std::uint16_t entry = 0; entry < info.reta_size; ++entry) {
    rte_eth_rss_reta_entry64& group = table[entry / RTE_ETH_RETA_GROUP_SIZE];
    group.mask |= std::uint64_t{1} << (entry % RTE_ETH_RETA_GROUP_SIZE);
    group.reta[entry % RTE_ETH_RETA_GROUP_SIZE] = static_cast<std::uint16_t>(entry % data_queues);
  }
  if (const int rc = rte_eth_dev_rss_reta_update(port_id, table.data(), info.reta_size); rc != 0) {
    return std::string("rte_eth_dev_rss_reta_update: ") + rte_strerror(-rc);
  }
  return "";
}

SteeringResult steer_with_rte_flow(const SteeringRequest& request) {
  SteeringResult result;
  rte_flow* slow_rule = create_slow_rule(request, result.error);
  if (slow_rule == nullptr) return result;
  rte_flow* data_rule = nullptr;
  if (!request.rss_unrestricted_reason.empty()) {
    data_rule = create_data_rule(request, result.error);
    if (data_rule == nullptr) {
      // Without it the device may spread data onto the slow queue, which nobody forwards from.
      result.error = "the RSS table cannot be kept to the data queues (" +
                     request.rss_unrestricted_reason +
                     ") and the catch-all rule for them fails: " + result.error;
      rte_flow_error error{};
      rte_flow_destroy(request.port_id, slow_rule, &error);
      return result;
    }
  }
  result.steering = std::make_unique<RteFlowSteering>(request.port_id, slow_rule, data_rule);
  return result;
}

}  // namespace braid::drivers
