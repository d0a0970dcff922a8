// Publishes BondTable generations to workers without locks (YANET/grout style): the control
// thread swaps an atomic pointer; workers load it once per burst and report quiescent states to
// an rte_rcu_qsbr; an old table is freed once every online worker has passed a quiescent state
// since it was replaced.
#pragma once

#include <rte_rcu_qsbr.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "bond/dpdk/bond_table.hpp"

namespace braid::bond {

class TablePublisher {
 public:
  explicit TablePublisher(rte_rcu_qsbr* qsbr) : qsbr_(qsbr) {}
  ~TablePublisher();
  TablePublisher(const TablePublisher&) = delete;
  TablePublisher& operator=(const TablePublisher&) = delete;

  // Worker side: the current table (never null after the first publish).
  const BondTable* current() const { return current_.load(std::memory_order_acquire); }

  // Control side.
  void publish(std::unique_ptr<BondTable> table);
  // Frees the tables every worker has moved past; returns how many are still waiting.
  std::size_t reclaim();
  std::uint64_t published() const { return published_; }
  // Replaced tables not freed yet: some worker may still read them.
  std::size_t retired() const { return retired_.size(); }

 private:
  struct Retired {
    const BondTable* table;
    std::uint64_t token;
  };
  rte_rcu_qsbr* qsbr_;
  std::atomic<const BondTable*> current_{nullptr};
  std::vector<Retired> retired_;
  std::uint64_t published_ = 0;
};

}  // namespace braid::bond
