// braid's rte_log type, so `--log-level=braid:debug` (and later the console) control it.
#pragma once

#include <rte_log.h>

namespace braid::log {

int engine_type();

}  // namespace braid::log

#define BRAID_LOG(level, ...) \
  rte_log(RTE_LOG_##level, ::braid::log::engine_type(), "braid: " __VA_ARGS__)
