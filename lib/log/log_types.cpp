#include "log/log_types.hpp"

#include <string>

namespace braid::log {

int type(Module module) {
  static std::array<int, kModuleTypeNames.size()> types = [] {
    std::array<int, kModuleTypeNames.size()> registered{};
    for (std::size_t i = 0; i < kModuleTypeNames.size(); ++i) {
      const int id = rte_log_register_type_and_pick_level(std::string(kModuleTypeNames[i]).c_str(),
                                                          RTE_LOG_INFO);
      registered[i] = id >= 0 ? id : static_cast<int>(RTE_LOGTYPE_USER1);
    }
    return registered;
  }();
  return types[static_cast<std::size_t>(module)];
}

void register_all() {
  type(Module::kEngine);
}

}  // namespace braid::log
