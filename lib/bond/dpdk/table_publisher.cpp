#include "bond/dpdk/table_publisher.hpp"

#include <algorithm>

namespace braid::bond {

TablePublisher::~TablePublisher() {
  // Workers are stopped (offline) before bonds are destroyed, so nothing reads these any more.
  for (const Retired& retired : retired_)
    delete retired.table;
  delete current_.load();
}

void TablePublisher::publish(std::unique_ptr<BondTable> table) {
  table->generation = ++published_;
  const BondTable* old = current_.exchange(table.release(), std::memory_order_acq_rel);
  if (old != nullptr) retired_.push_back({old, rte_rcu_qsbr_start(qsbr_)});
  reclaim();
}

std::size_t TablePublisher::reclaim() {
  std::erase_if(retired_, [this](const Retired& retired) {
    if (rte_rcu_qsbr_check(qsbr_, retired.token, false) != 1) return false;
    delete retired.table;
    return true;
  });
  return retired_.size();
}

}  // namespace braid::bond
