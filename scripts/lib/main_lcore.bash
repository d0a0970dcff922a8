# shellcheck shell=bash
# The main lcore's checks for scripts/preflight (sourced after common.bash; report and join_by
# come from preflight): the protocol loop's CPU is no worker's, shares no physical core with a
# worker, and is not isolated (doc/deploy.md, "The protocol loop's CPU").
#
# braid runs its protocol loop (LACP timers, link state, failover, the scheduler) on EAL's main
# lcore, and its management thread (console, control socket, metrics), niced 10 below it, on
# the same CPU; the workers busy-poll theirs. These checks take lcore N to run on CPU N: braid
# hands EAL `-l <main>,<workers>`, which is that mapping, and so are -l and -c in eal.args; only
# --lcores there can map an lcore elsewhere, and then the CPU checks are left to the reader.

# The CPUs that share CPU $1's physical core (hyperthreads), itself included, one per line.
# Fails when sysfs does not say (no topology directory: some VMs and containers).
cpu_core_siblings() {
  local dir=$SYSFS/devices/system/cpu/cpu$1/topology list
  list=$(read_first_line "$dir/thread_siblings_list") || list=$(read_first_line "$dir/core_cpus_list") ||
    return 1
  expand_cpu_list "$list"
}

# The kernel's CPU list in FILE as "|cpu|cpu|" for membership tests ("" when absent or "(null)").
cpu_set_of() {
  local value
  value=$(read_first_line "$1" || echo "")
  [[ "$value" == "(null)" ]] && value=""
  printf '|%s|' "$(expand_cpu_list "$value" | paste -sd'|' -)"
}

# A CPU that could take the protocol loop: online, not a worker, not isolated or nohz_full, and
# no sibling of it a worker or isolated; on the main lcore's node when one is. Prints
# "CPU N (thread_siblings_list LIST)", or nothing.
suggest_main_cpu() {
  local workers isolated nohz main_node cpu sibling siblings node candidates=() fallback=()
  workers="|$(printf '%s|' "${CONFIG_WORKER_LCORES[@]}")"
  isolated=$(cpu_set_of "$SYSFS/devices/system/cpu/isolated")
  nohz=$(cpu_set_of "$SYSFS/devices/system/cpu/nohz_full")
  main_node=$(cpu_node "$CONFIG_MAIN_LCORE")
  local online
  online=$(read_first_line "$SYSFS/devices/system/cpu/online") || return 0
  for cpu in $(expand_cpu_list "$online"); do
    [[ "$workers$isolated$nohz" == *"|$cpu|"* ]] && continue
    siblings=$(cpu_core_siblings "$cpu" | compress_cpu_list) || siblings=$cpu
    local clean=1
    for sibling in $(expand_cpu_list "$siblings"); do
      [[ "$workers$isolated" == *"|$sibling|"* ]] && clean=0
    done
    ((clean)) || continue
    node=$(cpu_node "$cpu")
    if [[ "$node" == "$main_node" ]]; then candidates+=("$cpu:$siblings"); else fallback+=("$cpu:$siblings:$node"); fi
  done
  if ((${#candidates[@]})); then
    echo "CPU ${candidates[0]%%:*} (thread_siblings_list ${candidates[0]#*:})"
  elif ((${#fallback[@]})); then
    local pick=${fallback[0]}
    IFS=: read -r cpu siblings node <<<"$pick"
    echo "CPU $cpu on node $node (thread_siblings_list $siblings)"
  fi
}

# What to do, for the messages below.
move_main_lcore_advice() {
  local suggestion
  suggestion=$(suggest_main_cpu)
  if [[ -n "$suggestion" ]]; then
    echo "move $CONFIG_MAIN_LCORE_SOURCE to a physical core with no worker and no isolated CPU, e.g. $suggestion"
  else
    echo "keep one physical core (both its hyperthreads) out of workers.lcores and isolcpus, and put $CONFIG_MAIN_LCORE_SOURCE on it"
  fi
}

check_main_lcore() {
  local main=$CONFIG_MAIN_LCORE workers
  workers=$(printf '%s\n' "${CONFIG_WORKER_LCORES[@]}" | compress_cpu_list)
  if main_lcore_is_a_worker; then
    report FAIL "main lcore" "lcore $main ($CONFIG_MAIN_LCORE_SOURCE) is also a worker (workers.lcores $workers): the protocol loop needs it while a worker would busy-poll it, and braid refuses to start; $(move_main_lcore_advice)"
  else
    report PASS "main lcore" "lcore $main ($CONFIG_MAIN_LCORE_SOURCE) runs the protocol loop and the management thread, no worker (workers $workers)"
  fi
}

# The main lcore is also a worker's: the CPU checks would describe a worker's CPU.
main_lcore_is_a_worker() {
  [[ "|$(printf '%s|' "${CONFIG_WORKER_LCORES[@]}")" == *"|$CONFIG_MAIN_LCORE|"* ]]
}

check_main_lcore_siblings() {
  local main=$CONFIG_MAIN_LCORE siblings cpu others=() busy=()
  if main_lcore_is_a_worker; then
    report SKIP "main lcore siblings" "lcore $main is a worker's (main lcore above): place the main lcore first"
    return 0
  elif ((CONFIG_LCORES_REMAPPED)); then
    report SKIP "main lcore siblings" "eal.args maps lcores onto other CPUs (--lcores): find the main lcore's CPU there and check its topology/thread_siblings_list by hand"
    return 0
  fi
  if ! siblings=$(cpu_core_siblings "$main"); then
    report SKIP "main lcore siblings" "no $SYSFS/devices/system/cpu/cpu$main/topology/thread_siblings_list: cannot tell which CPUs share CPU $main's core (lscpu -e, the CORE column, may)"
    return 0
  fi
  local workers
  workers="|$(printf '%s|' "${CONFIG_WORKER_LCORES[@]}")"
  for cpu in $siblings; do
    [[ "$cpu" == "$main" ]] && continue
    others+=("$cpu")
    [[ "$workers" == *"|$cpu|"* ]] && busy+=("$cpu")
  done
  local list
  list=$(printf '%s\n' "$main" "${others[@]}" | compress_cpu_list)
  if ((${#busy[@]})); then
    report WARN "main lcore siblings" "CPU $main shares its physical core with worker CPU $(printf '%s\n' "${busy[@]}" | compress_cpu_list) (thread_siblings_list $list): a worker busy-polls without a pause, so the protocol loop (LACP, link state, failover) always shares the core's execution units with it, and each of its wake-ups slows that worker in turn; $(move_main_lcore_advice)"
  elif ((${#others[@]} == 0)); then
    report PASS "main lcore siblings" "CPU $main has its physical core to itself (no hyperthread sibling)"
  else
    report PASS "main lcore siblings" "CPU $main shares its physical core with CPU $(printf '%s\n' "${others[@]}" | compress_cpu_list), no worker (thread_siblings_list $list)"
  fi
}

check_main_lcore_isolation() {
  local main=$CONFIG_MAIN_LCORE
  if main_lcore_is_a_worker; then
    report SKIP "main lcore isolation" "lcore $main is a worker's (main lcore above): place the main lcore first"
    return 0
  elif ((CONFIG_LCORES_REMAPPED)); then
    report SKIP "main lcore isolation" "eal.args maps lcores onto other CPUs (--lcores): check by hand that the main lcore's CPU and its siblings are not in $SYSFS/devices/system/cpu/isolated"
    return 0
  fi
  local isolated_file=$SYSFS/devices/system/cpu/isolated nohz_file=$SYSFS/devices/system/cpu/nohz_full
  local isolated nohz isolated_list nohz_list
  isolated=$(cpu_set_of "$isolated_file")
  nohz=$(cpu_set_of "$nohz_file")
  isolated_list=$(read_first_line "$isolated_file" || echo "")
  nohz_list=$(read_first_line "$nohz_file" || echo "")
  local in=()
  [[ "$isolated" == *"|$main|"* ]] && in+=("isolcpus ($isolated_list)")
  [[ "$nohz" == *"|$main|"* ]] && in+=("nohz_full ($nohz_list)")
  # An isolated sibling that is a worker is the siblings check's finding; the others here.
  local workers siblings cpu isolated_siblings=() topology=1
  workers="|$(printf '%s|' "${CONFIG_WORKER_LCORES[@]}")"
  siblings=$(cpu_core_siblings "$main") || topology=0
  local other_siblings=()
  for cpu in $siblings; do
    [[ "$cpu" == "$main" ]] && continue
    other_siblings+=("$cpu")
    [[ "$workers" == *"|$cpu|"* ]] && continue
    [[ "$isolated" == *"|$cpu|"* ]] && isolated_siblings+=("$cpu")
  done
  if ((${#in[@]})); then
    local why="isolated CPUs are for the busy-polling workers; the protocol loop sleeps between deadlines and wakes at every link poll of a bond (link_poll_us, 1 ms by default)"
    [[ "$nohz" == *"|$main|"* ]] && why+=", and on a nohz_full CPU every such wake-up restarts the scheduler tick and every system call pays for context tracking"
    report WARN "main lcore isolation" "CPU $main is in $(join_by ' and ' "${in[@]}"): $why; $(move_main_lcore_advice)"
  elif ((${#isolated_siblings[@]})); then
    report WARN "main lcore isolation" "CPU $main shares its physical core with isolated CPU $(printf '%s\n' "${isolated_siblings[@]}" | compress_cpu_list) (isolcpus $isolated_list): an isolated CPU is kept for a busy poller (a worker to come, another DPDK process), which would take the core from the protocol loop; isolate whole cores, or $(move_main_lcore_advice)"
  elif ((topology && ${#other_siblings[@]})); then
    report PASS "main lcore isolation" "CPU $main and its sibling CPU $(printf '%s\n' "${other_siblings[@]}" | compress_cpu_list) are housekeeping CPUs, in neither isolcpus (${isolated_list:-empty}) nor nohz_full (${nohz_list:-empty})"
  elif ((topology)); then
    report PASS "main lcore isolation" "CPU $main is a housekeeping CPU, in neither isolcpus (${isolated_list:-empty}) nor nohz_full (${nohz_list:-empty})"
  else
    report PASS "main lcore isolation" "CPU $main is in neither isolcpus (${isolated_list:-empty}) nor nohz_full (${nohz_list:-empty}); its siblings are unknown (no topology/thread_siblings_list)"
  fi
}
