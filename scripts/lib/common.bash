# shellcheck shell=bash
# Helpers shared by scripts/hugepages, scripts/bind and scripts/preflight (sourced, not run).
#
# Every path under /sys and /proc goes through $SYSFS and $PROCFS so that the tests can point
# the scripts at fake trees (test/scripts/fixtures/) instead of the real machine. Every change a
# script makes goes through run_change / write_change, which only print under --dry-run.

SYSFS=${SYSFS:-/sys}
PROCFS=${PROCFS:-/proc}
DRY_RUN=${DRY_RUN:-0}
SCRIPT_NAME=${SCRIPT_NAME:-braid}

die() {
  echo "$SCRIPT_NAME: $*" >&2
  exit 1
}

usage_error() {
  echo "$SCRIPT_NAME: $* (see --help)" >&2
  exit 2
}

note() {
  echo "$SCRIPT_NAME: $*"
}

# Runs a command that changes the machine, or prints it under --dry-run.
run_change() {
  if ((DRY_RUN)); then
    echo "would run: $*"
  else
    echo "run: $*"
    "$@"
  fi
}

# Writes VALUE into FILE (a sysfs knob or a config file line), or prints it under --dry-run.
write_change() {
  local value=$1 file=$2
  if ((DRY_RUN)); then
    echo "would write: $value > $file"
  else
    echo "write: $value > $file"
    printf '%s\n' "$value" >"$file"
  fi
}

# Creates FILE with the content on stdin, or prints it under --dry-run (content indented).
install_file_change() {
  local file=$1 content
  content=$(cat)
  if ((DRY_RUN)); then
    echo "would create: $file"
    printf '%s\n' "$content" | sed 's/^/    | /'
  else
    echo "create: $file"
    mkdir -p "$(dirname "$file")"
    printf '%s\n' "$content" >"$file"
  fi
}

read_first_line() {
  local file=$1
  [[ -r "$file" ]] || return 1
  local line=""
  IFS= read -r line <"$file" || [[ -n "$line" ]] || return 1
  printf '%s\n' "$line"
}

# Expands a kernel CPU list ("0-3,8,10-11") into one number per line.
expand_cpu_list() {
  local list=$1 part first last cpu
  list=${list//[[:space:]]/}
  [[ -z "$list" ]] && return 0
  local IFS=,
  for part in $list; do
    if [[ "$part" == *-* ]]; then
      first=${part%-*}
      last=${part#*-}
      last=${last%%:*} # "0-15:2" stride form: the stride is rare; treat as a plain range
      for ((cpu = first; cpu <= last; cpu++)); do echo "$cpu"; done
    elif [[ -n "$part" ]]; then
      echo "$part"
    fi
  done
}

# Folds CPU numbers (one per line on stdin) back into a kernel CPU list ("2-7,10").
compress_cpu_list() {
  sort -n -u | awk '
    function flush() { out = out (out != "" ? "," : "") (start == prev ? start : start "-" prev) }
    NF == 0 { next }
    !have { start = prev = $1; have = 1; next }
    $1 == prev + 1 { prev = $1; next }
    { flush(); start = prev = $1 }
    END { if (have) flush(); print out }'
}

# The NUMA node of a CPU: node membership under devices/system/node, else the CPU's package.
# Prints nothing when the CPU does not exist in this sysfs.
cpu_node() {
  local cpu=$1 node_dir
  for node_dir in "$SYSFS"/devices/system/node/node[0-9]*; do
    [[ -e "$node_dir/cpu$cpu" ]] && { echo "${node_dir##*/node}"; return 0; }
  done
  local package
  if package=$(read_first_line "$SYSFS/devices/system/cpu/cpu$cpu/topology/physical_package_id"); then
    echo "$package"
    return 0
  fi
  [[ -d "$SYSFS/devices/system/cpu/cpu$cpu" ]] && echo 0
  return 0
}

# NUMA nodes of this machine (one per line); "0" on a machine without devices/system/node.
numa_nodes() {
  local node_dir found=0
  for node_dir in "$SYSFS"/devices/system/node/node[0-9]*; do
    [[ -d "$node_dir" ]] || continue
    echo "${node_dir##*/node}"
    found=1
  done
  ((found)) || echo 0
}

pci_device_dir() {
  echo "$SYSFS/bus/pci/devices/$1"
}

# The NUMA node sysfs reports for a PCI device: empty when the device is absent, -1 when the
# platform does not say (single-socket machines and some VMs).
pci_numa_node() {
  local dir
  dir=$(pci_device_dir "$1")
  [[ -d "$dir" ]] || return 0
  read_first_line "$dir/numa_node" || echo -1
}

# The kernel driver a PCI device is bound to ("mlx5_core", "vfio-pci", "ice"), or "none".
pci_driver() {
  local link
  link=$(pci_device_dir "$1")/driver
  if [[ -L "$link" || -e "$link" ]]; then
    basename "$(readlink "$link")"
  else
    echo none
  fi
}

pci_vendor() {
  read_first_line "$(pci_device_dir "$1")/vendor" || echo unknown
}

pci_device_id() {
  read_first_line "$(pci_device_dir "$1")/device" || echo unknown
}

# mlx5 devices (vendor 0x15b3 Mellanox/NVIDIA, or already on mlx5_core) stay on their kernel
# driver: the mlx5 PMD is bifurcated and drives the NIC through rdma-core (libibverbs/libmlx5).
pci_is_mlx5() {
  [[ "$(pci_vendor "$1")" == 0x15b3 || "$(pci_driver "$1")" == mlx5_core ]]
}

# Kernel network interfaces of a PCI device (present while a kernel driver owns it).
pci_netdevs() {
  local dir
  dir=$(pci_device_dir "$1")/net
  [[ -d "$dir" ]] || return 0
  local iface
  for iface in "$dir"/*; do
    [[ -e "$iface" ]] && basename "$iface"
  done
}

# "3b:00.0" -> "0000:3b:00.0"; anything that is not a PCI address prints nothing.
normalize_pci_address() {
  local address=${1,,}
  if [[ "$address" =~ ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$ ]]; then
    echo "$address"
  elif [[ "$address" =~ ^[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$ ]]; then
    echo "0000:$address"
  fi
}

# Loads the parts of a braid config the deployment scripts need into CONFIG_* variables.
# Unknown sections (scheduler, ... as they are added) are ignored on purpose: braid --check is
# what validates a config; these scripts only read ports, lcores, sizes and which ports are bond
# members (those have more queues).
# Defaults are doc/config.md's.
# shellcheck disable=SC2034 # the CONFIG_* variables are read by the scripts that source this
load_config() {
  local file=$1
  [[ -r "$file" ]] || die "config $file: cannot read it"
  command -v python3 >/dev/null || die "python3 is needed to read $file (scripts/deps installs it)"
  local parsed
  # shellcheck disable=SC2016 # the Python program is single-quoted on purpose
  parsed=$(python3 -c '
import re, sys, yaml
path = sys.argv[1]
try:
    with open(path) as f:
        doc = yaml.safe_load(f) or {}
except Exception as e:
    sys.exit(f"config {path}: not valid YAML: {e}")
if not isinstance(doc, dict):
    sys.exit(f"config {path}: the top level must be a mapping")
def section(name):
    value = doc.get(name) or {}
    if not isinstance(value, dict):
        sys.exit(f"config {path}: {name} must be a mapping")
    return value
eal, workers = section("eal"), section("workers")
lcores = workers.get("lcores", [1])
if not isinstance(lcores, list) or not all(isinstance(c, int) for c in lcores):
    sys.exit(f"config {path}: workers.lcores must be a list of numbers")
args = [str(a) for a in (eal.get("args") or [])]
# --lcores can map lcore ids onto other CPUs ("1@3", "(1,2)@(4,5)"); -l and -c cannot.
remapped = bool(re.search(r"--lcores[= ]\S*[@(]", " ".join(args)))
# braid passes --main-lcore=<eal.main_lcore> unless eal.args has its own, which EAL then uses.
main_lcore, main_source = int(eal.get("main_lcore", 0)), "eal.main_lcore"
for i, arg in enumerate(args):
    value = arg.split("=", 1)[1] if arg.startswith("--main-lcore=") else (
        args[i + 1] if arg == "--main-lcore" and i + 1 < len(args) else None)
    if value is not None and value.isdigit():
        main_lcore, main_source = int(value), "--main-lcore in eal.args"
print("main_lcore", main_lcore)
print("main_lcore_source", main_source)
print("file_prefix", eal.get("file_prefix", "braid"))
print("lcores_remapped", int(remapped))
print("worker_lcores", *lcores)
print("burst", int(workers.get("burst", 32)))
print("bonds", len(doc.get("bonds") or []))
ports = doc.get("ports") or []
if not isinstance(ports, list):
    sys.exit(f"config {path}: ports must be a list")
# Bond members get one more TX queue (for the control thread) and, unless slow_steering is off,
# a slow-protocol RX queue of 128 descriptors (lib/engine/port_queues.hpp). YAML 1.1 reads a
# bare on/off as a boolean.
bond_of, bond_name_of, members_of = {}, {}, {}
for bond in doc.get("bonds") or []:
    if isinstance(bond, dict):
        steering = bond.get("slow_steering", "auto")
        steering = {True: "on", False: "off"}.get(steering, steering)
        members_of[str(bond.get("name"))] = [str(m) for m in bond.get("members") or []]
        for member in bond.get("members") or []:
            bond_of[str(member)] = steering
            bond_name_of[str(member)] = str(bond.get("name"))
# A port transmits what its cross-connect peer received (a member: what the peer of its bond did):
# its data TX rings hold the mbufs of those ports (lib/engine/memory_plan.cpp, tx_sources).
names = [str(p.get("name")) if isinstance(p, dict) else "" for p in ports]
def tx_sources(i):
    endpoint = bond_name_of.get(names[i], names[i])
    peers = []
    for pair in doc.get("cross_connect") or []:
        if isinstance(pair, list) and len(pair) == 2:
            a, b = str(pair[0]), str(pair[1])
            peers += [b] if a == endpoint else []
            peers += [a] if b == endpoint else []
    sources = []
    for peer in peers:
        for name in members_of.get(peer, [peer]):
            if name in names and names.index(name) not in sources:
                sources.append(names.index(name))
    return sources or [i]
# Device arguments only the mlx5 PMD takes: they name a port mlx5 even where its NIC is absent.
MLX5_DEVARGS = {"dv_flow_en", "dv_xmeta_en", "dv_esw_en", "mprq_en", "rxq_cqe_comp_en",
                "txq_inline_max", "txq_mpw_en", "tx_pp", "class"}
for i, port in enumerate(ports):
    if not isinstance(port, dict) or "name" not in port or "device" not in port:
        sys.exit(f"config {path}: ports[{i}] needs a name and a device")
    device = str(port["device"]).split(",")[0]
    tx_queues = int(port.get("tx_queues", 0)) or len(lcores)
    steering = bond_of.get(str(port["name"]))
    tx_queues += 0 if steering is None else 1
    slow_rx_descriptors = 0 if steering in (None, "off") else 128
    print("port", port["name"], device, int(port.get("rx_queues", 1)), tx_queues,
          int(port.get("rx_descriptors", 1024)), int(port.get("tx_descriptors", 1024)),
          int(port.get("mtu", 1500)), int(port.get("extra_mbufs", 0)), slow_rx_descriptors,
          int(any(arg.split("=")[0] in MLX5_DEVARGS for arg in str(port["device"]).split(",")[1:])),
          ",".join(str(source) for source in tx_sources(i)), tx_queues - (0 if steering is None else 1))
' "$file") || exit 1

  CONFIG_FILE=$file
  CONFIG_PORT_NAMES=() CONFIG_PORT_DEVICES=() CONFIG_PORT_PCI=() CONFIG_PORT_RXQ=()
  CONFIG_PORT_TXQ=() CONFIG_PORT_RXD=() CONFIG_PORT_TXD=() CONFIG_PORT_MTU=() CONFIG_PORT_EXTRA=()
  CONFIG_PORT_SLOW_RXD=() CONFIG_PORT_MLX5_ARGS=() CONFIG_PORT_TX_SOURCES=() CONFIG_PORT_DATA_TXQ=()
  CONFIG_WORKER_LCORES=()
  local key rest name device rxq txq rxd txd mtu extra slow_rxd mlx5_args tx_sources data_txq
  while read -r key rest; do
    case "$key" in
      main_lcore) CONFIG_MAIN_LCORE=$rest ;;
      main_lcore_source) CONFIG_MAIN_LCORE_SOURCE=$rest ;;
      file_prefix) CONFIG_FILE_PREFIX=$rest ;;
      lcores_remapped) CONFIG_LCORES_REMAPPED=$rest ;;
      worker_lcores) read -r -a CONFIG_WORKER_LCORES <<<"$rest" ;;
      burst) CONFIG_BURST=$rest ;;
      bonds) CONFIG_BONDS=$rest ;;
      port)
        read -r name device rxq txq rxd txd mtu extra slow_rxd mlx5_args tx_sources data_txq <<<"$rest"
        CONFIG_PORT_NAMES+=("$name")
        CONFIG_PORT_DEVICES+=("$device")
        CONFIG_PORT_PCI+=("$(normalize_pci_address "$device")")
        CONFIG_PORT_RXQ+=("$rxq") CONFIG_PORT_TXQ+=("$txq")
        CONFIG_PORT_RXD+=("$rxd") CONFIG_PORT_TXD+=("$txd")
        CONFIG_PORT_MTU+=("$mtu") CONFIG_PORT_EXTRA+=("$extra") CONFIG_PORT_SLOW_RXD+=("$slow_rxd")
        CONFIG_PORT_MLX5_ARGS+=("$mlx5_args") CONFIG_PORT_TX_SOURCES+=("$tx_sources")
        CONFIG_PORT_DATA_TXQ+=("$data_txq")
        ;;
    esac
  done <<<"$parsed"
}

# The node whose hugepages back a port's mempool: the device's numa_node, or (like braid's
# engine, which falls back to the main lcore's socket when DPDK reports SOCKET_ID_ANY) the main
# lcore's node for virtual devices, absent devices and numa_node -1.
port_memory_node() {
  local index=$1 address node main_node
  address=${CONFIG_PORT_PCI[$index]}
  main_node=$(cpu_node "$CONFIG_MAIN_LCORE")
  main_node=${main_node:-0}
  if [[ -n "$address" ]]; then
    node=$(pci_numa_node "$address")
    if [[ -n "$node" && "$node" -ge 0 ]]; then
      echo "$node"
      return 0
    fi
  fi
  echo "$main_node"
}

# Hugepage memory per NUMA node for the loaded config. The mbuf count is braid's own formula
# (lib/engine/mempool_sizing.hpp, Engine::create_mempools); the rest is DPDK's overhead:
#
#   mbufs(node)  = rx_desc + tx_desc + pmd_held + held + lcores*burst*(ports+1) + lcores*256*3/2
#                  + that sum / 8 + 1024
#                  (rx_desc = sum of rx_queues*rx_descriptors of the node's ports, plus 128 for
#                   each bond member's slow-protocol RX queue unless its bond's slow_steering is
#                   off; tx_desc = the data TX rings (tx_queues*tx_descriptors, a bond member's
#                   control queue not counted) of every port that forwards what the node's ports
#                   receive (their cross-connect peers; a port forwarding nothing, its own);
#                   held = 2048 packets per worker and bond, what workers may hold for
#                   buckets being moved (kHeldPacketsPerWorker); lcores = workers + the main
#                   lcore; ports = every port of the config)
#   data_room    = 2176 (RTE_MBUF_DEFAULT_BUF_SIZE) when mtu <= 1500, else
#                  mtu + 14 (Ethernet) + 4 (CRC) + 8 (two VLAN tags) + 128 (headroom)
#   mbuf_bytes   = data_room + 128 (struct rte_mbuf) + 128 (mempool object header, aligned to a
#                  cache line, and the padding that spreads objects over memory channels)
#   pool_bytes   = mbufs * mbuf_bytes + next_pow2(mbufs) * 8 (the pool's ring of pointers)
#   ring_bytes   = (rx_desc + tx_ring) * 128 (tx_ring: the node's ports' own TX rings, a
#                  member having one TX queue more than the workers; hardware descriptors up
#                  to 64 B, the PMD's software ring and completion entries)
#   headroom     = 256 MiB on every node that has ports or the main lcore: EAL's malloc heap
#                  and memzones, ethdev's shared port data, each mempool's per-lcore cache
#                  array (RTE_MAX_LCORE caches of up to 1024 pointers), mlx5's memory-region
#                  cache and per-queue work/completion queues, and page-granular
#                  fragmentation. It is deliberately generous: a pool that does not fit fails
#                  start-up, an unused page costs 2 MiB (or 1 GiB) of RAM.
#
# Prints "node bytes mbufs data_room" lines, one per node that needs memory.
readonly HUGEPAGE_HEADROOM_BYTES=$((256 * 1024 * 1024))
readonly MEMPOOL_CACHE_SIZE=256
readonly MBUF_DEFAULT_DATA_ROOM=2176
readonly MBUF_STRUCT_BYTES=128
readonly MEMPOOL_OBJECT_OVERHEAD_BYTES=128
readonly DESCRIPTOR_RING_BYTES=128
readonly HELD_PACKETS_PER_WORKER=2048

hugepage_demand() {
  local -A rx_desc=() tx_desc=() tx_ring=() pmd_held=() max_mtu=() has_ports=() charged=()
  local i node ports=${#CONFIG_PORT_NAMES[@]} lcores=$((${#CONFIG_WORKER_LCORES[@]} + 1))
  local source data_tx
  local -a sources
  for ((i = 0; i < ports; i++)); do
    node=$(port_memory_node "$i")
    has_ports[$node]=1
    rx_desc[$node]=$((${rx_desc[$node]:-0} + CONFIG_PORT_RXQ[i] * CONFIG_PORT_RXD[i] + CONFIG_PORT_SLOW_RXD[i]))
    tx_ring[$node]=$((${tx_ring[$node]:-0} + CONFIG_PORT_TXQ[i] * CONFIG_PORT_TXD[i]))
    pmd_held[$node]=$((${pmd_held[$node]:-0} + CONFIG_PORT_EXTRA[i]))
    ((CONFIG_PORT_MTU[i] > ${max_mtu[$node]:-0})) && max_mtu[$node]=${CONFIG_PORT_MTU[i]}
    # The data TX rings (a member's control queue carries control-pool mbufs) hold the mbufs of
    # the ports it forwards from: each of their nodes' pools may have to cover all of them.
    data_tx=$((CONFIG_PORT_DATA_TXQ[i] * CONFIG_PORT_TXD[i]))
    charged=()
    IFS=, read -r -a sources <<<"${CONFIG_PORT_TX_SOURCES[i]}"
    for source in "${sources[@]}"; do
      node=$(port_memory_node "$source")
      [[ -n "${charged[$node]:-}" ]] && continue
      charged[$node]=1
      tx_desc[$node]=$((${tx_desc[$node]:-0} + data_tx))
    done
  done
  local main_node
  main_node=$(cpu_node "$CONFIG_MAIN_LCORE")
  main_node=${main_node:-0}
  local -a nodes
  mapfile -t nodes < <(printf '%s\n' "${!has_ports[@]}" "$main_node" | sort -n -u)
  local held=$((HELD_PACKETS_PER_WORKER * ${#CONFIG_WORKER_LCORES[@]} * CONFIG_BONDS))
  local in_worker in_caches total mbufs data_room mbuf_bytes ring_slots bytes
  for node in "${nodes[@]}"; do
    bytes=$HUGEPAGE_HEADROOM_BYTES mbufs=0 data_room=0
    if [[ -n "${has_ports[$node]:-}" ]]; then
      in_worker=$((lcores * CONFIG_BURST * (ports + 1)))
      in_caches=$((lcores * MEMPOOL_CACHE_SIZE * 3 / 2))
      total=$((rx_desc[$node] + ${tx_desc[$node]:-0} + pmd_held[$node] + held + in_worker + in_caches))
      mbufs=$((total + total / 8 + 1024))
      data_room=$MBUF_DEFAULT_DATA_ROOM
      if ((max_mtu[$node] + 14 + 4 + 8 + 128 > data_room)); then
        data_room=$((max_mtu[$node] + 14 + 4 + 8 + 128))
      fi
      mbuf_bytes=$((data_room + MBUF_STRUCT_BYTES + MEMPOOL_OBJECT_OVERHEAD_BYTES))
      ring_slots=1
      while ((ring_slots < mbufs + 1)); do ring_slots=$((ring_slots * 2)); done
      bytes=$((bytes + mbufs * mbuf_bytes + ring_slots * 8))
      bytes=$((bytes + (rx_desc[$node] + tx_ring[$node]) * DESCRIPTOR_RING_BYTES))
    fi
    echo "$node $bytes $mbufs $data_room"
  done
}

# "2M" / "2048kB" / "1G" -> kB; prints nothing for anything else.
page_size_kb() {
  case "${1^^}" in
    2M | 2MB | 2048K | 2048KB) echo 2048 ;;
    1G | 1GB | 1024M | 1048576KB) echo 1048576 ;;
  esac
}

human_bytes() {
  local bytes=$1
  if ((bytes >= 1024 * 1024 * 1024 && bytes % (1024 * 1024 * 1024) == 0)); then
    echo "$((bytes / 1024 / 1024 / 1024)) GiB"
  else
    echo "$(((bytes + 1024 * 1024 - 1) / 1024 / 1024)) MiB"
  fi
}

# Hugepage counters of one node and size ("nr free"); "0 0" when the size does not exist there.
node_hugepages() {
  local node=$1 size_kb=$2 dir nr free
  dir="$SYSFS/devices/system/node/node$node/hugepages/hugepages-${size_kb}kB"
  if [[ ! -d "$dir" && "$node" == 0 && ! -d "$SYSFS/devices/system/node/node0" ]]; then
    dir="$SYSFS/kernel/mm/hugepages/hugepages-${size_kb}kB" # machine without NUMA in sysfs
  fi
  nr=$(read_first_line "$dir/nr_hugepages" || echo 0)
  free=$(read_first_line "$dir/free_hugepages" || echo 0)
  echo "$nr $free"
}

# Mount points of hugetlbfs with their page size in kB ("mountpoint kB"), from /proc/mounts.
# A mount without pagesize= uses the default size (Hugepagesize in /proc/meminfo).
hugetlbfs_mounts() {
  local default_kb
  default_kb=$(awk '/^Hugepagesize:/ {print $2}' "$PROCFS/meminfo" 2>/dev/null || true)
  [[ -r "$PROCFS/mounts" ]] || return 0
  awk -v default_kb="${default_kb:-2048}" '$3 == "hugetlbfs" {
      kb = default_kb
      n = split($4, options, ",")
      for (i = 1; i <= n; i++) {
        if (options[i] ~ /^pagesize=/) {
          value = substr(options[i], 10)
          if (value ~ /[Gg]$/) kb = value * 1048576
          else if (value ~ /[Mm]$/) kb = value * 1024
          else if (value ~ /[Kk]$/) kb = value + 0
          else kb = value / 1024
        }
      }
      print $2, kb
    }' "$PROCFS/mounts"
}
