#include "engine/log.hpp"

namespace braid::log {

int engine_type() {
  static const int type = [] {
    const int registered = rte_log_register_type_and_pick_level("braid.engine", RTE_LOG_INFO);
    return registered >= 0 ? registered : static_cast<int>(RTE_LOGTYPE_USER1);
  }();
  return type;
}

}  // namespace braid::log
