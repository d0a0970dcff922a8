# shellcheck shell=bash
# PCIe link arithmetic and NIC identities for scripts/preflight (sourced after common.bash).
#
# A NIC's ports share one PCIe link: a dual-port card is one device with functions .0 and .1
# behind the same slot. What the link can carry per direction is
#
#   lanes x transfer rate x encoding efficiency
#   encoding: 8b/10b for Gen1 (2.5 GT/s) and Gen2 (5 GT/s), 128b/130b from Gen3 (8 GT/s) on
#
#   Gen3 x8  =  8 GT/s x  8 x 128/130 =  63.0 Gbit/s
#   Gen3 x16 =  8 GT/s x 16 x 128/130 = 126.0 Gbit/s  (two 100G ports need more: FAIL)
#   Gen4 x16 = 16 GT/s x 16 x 128/130 = 252.1 Gbit/s  (two 100G ports fit)
#
# Transaction-layer headers, descriptor fetches and completions take roughly another 10% at a
# 256-byte max payload, so a link loaded above 90% of that figure is a WARN, above 100% a FAIL.

# Line rate per port in Gbit/s by PCI vendor:device, for ports that have no kernel interface to
# read the speed from (vfio-pci). The fastest the port can run: a 2x100G card may be cabled at
# 25G, and then the interface's speed (when the kernel owns it) is what counts.
nic_line_rate_gbps() {
  case "$1" in
    0x15b3:0x1017 | 0x15b3:0x1019) echo 100 ;; # ConnectX-5, ConnectX-5 Ex
    0x15b3:0x101b) echo 200 ;;                 # ConnectX-6
    0x15b3:0x101d) echo 100 ;;                 # ConnectX-6 Dx
    0x15b3:0x101f) echo 25 ;;                  # ConnectX-6 Lx
    0x15b3:0x1021) echo 400 ;;                 # ConnectX-7
    0x8086:0x1592) echo 100 ;;                 # E810-C QSFP
    0x8086:0x1593 | 0x8086:0x159b) echo 25 ;;  # E810-C SFP, E810-XXV
    0x8086:0x1572) echo 10 ;;                  # X710
    0x8086:0x1583 | 0x8086:0x1584) echo 40 ;;  # XL710
    0x8086:0x158b) echo 25 ;;                  # XXV710
  esac
}

nic_model() {
  case "$1" in
    0x15b3:0x1017) echo "ConnectX-5" ;;
    0x15b3:0x1019) echo "ConnectX-5 Ex" ;;
    0x15b3:0x101b) echo "ConnectX-6" ;;
    0x15b3:0x101d) echo "ConnectX-6 Dx" ;;
    0x15b3:0x101f) echo "ConnectX-6 Lx" ;;
    0x15b3:0x1021) echo "ConnectX-7" ;;
    0x8086:0x1592 | 0x8086:0x1593) echo "E810-C" ;;
    0x8086:0x159b) echo "E810-XXV" ;;
    0x8086:0x1572) echo "X710" ;;
    0x8086:0x1583 | 0x8086:0x1584) echo "XL710" ;;
    0x8086:0x158b) echo "XXV710" ;;
    *) echo "unknown model" ;;
  esac
}

pci_identity() {
  local address=$1 id
  id="$(pci_vendor "$address"):$(pci_device_id "$address")"
  echo "${id//0x/} ($(nic_model "$id")), $(pci_driver "$address"), node $(pci_numa_node "$address")"
}

# The port's line rate in Gbit/s: the kernel interface's speed when it has one and the link is
# up, else the model's. Empty when neither is known.
port_line_rate_gbps() {
  local address=$1 iface speed
  for iface in $(pci_netdevs "$address"); do
    speed=$(read_first_line "$(pci_device_dir "$address")/net/$iface/speed" 2>/dev/null || echo "")
    if [[ "$speed" =~ ^[0-9]+$ ]] && ((speed > 0)); then
      echo $((speed / 1000))
      return 0
    fi
  done
  nic_line_rate_gbps "$(pci_vendor "$address"):$(pci_device_id "$address")"
}

# "16.0 GT/s PCIe" + width 16 -> "Gen4 x16 16 252.1" (generation, GT/s, Gbit/s per direction).
describe_link() {
  local speed=$1 width=$2
  awk -v speed="$speed" -v width="$width" 'BEGIN {
    gts = speed + 0
    if (gts <= 0 || width + 0 <= 0) exit 1
    gen = (gts < 3) ? 1 : (gts < 6) ? 2 : (gts < 10) ? 3 : (gts < 20) ? 4 : (gts < 40) ? 5 : 6
    efficiency = (gen <= 2) ? 8 / 10 : 128 / 130
    printf "Gen%d x%d %g %.1f\n", gen, width, gts, gts * width * efficiency
  }'
}

check_pcie_links() {
  local -A device_ports=() device_rate=() unknown_rate=()
  local i address device rate demand_note
  for i in "${PRESENT_PORTS[@]}"; do
    address=${CONFIG_PORT_PCI[$i]}
    device=${address%.*}
    device_ports[$device]+="${device_ports[$device]:+,}${CONFIG_PORT_NAMES[$i]}"
    rate=$(port_line_rate_gbps "$address")
    if [[ -z "$rate" ]]; then
      unknown_rate[$device]=1
    else
      device_rate[$device]=$((${device_rate[$device]:-0} + rate))
    fi
  done
  local ports check dir current max
  for device in $(printf '%s\n' "${!device_ports[@]}" | sort); do
    ports=${device_ports[$device]}
    check="pcie ${ports//,/+}"
    # Every function of a card reports the same link: read the first one present.
    dir=$(find "$SYSFS/bus/pci/devices/" -mindepth 1 -maxdepth 1 -name "$device.*" | sort | sed -n 1p)
    local speed width max_speed max_width
    speed=$(read_first_line "$dir/current_link_speed" || echo "")
    width=$(read_first_line "$dir/current_link_width" || echo "")
    max_speed=$(read_first_line "$dir/max_link_speed" || echo "")
    max_width=$(read_first_line "$dir/max_link_width" || echo "")
    if ! current=$(describe_link "$speed" "$width"); then
      report SKIP "$check" "$device has no usable current_link_speed/width in sysfs (a VM or a bridge hides it): check LnkSta in lspci -vvv -s $device.0"
      continue
    fi
    max=$(describe_link "$max_speed" "$max_width" || echo "$current")
    local link_gen link_lanes gts gbps max_gen max_lanes
    read -r link_gen link_lanes gts gbps <<<"$current"
    read -r max_gen max_lanes _ _ <<<"$max"
    local encoding=128/130
    [[ "$link_gen" == Gen[12] ]] && encoding=8/10
    local arithmetic="$link_gen $link_lanes = $gts GT/s x ${link_lanes#x} lanes x $encoding = $gbps Gbit/s per direction"
    local downtrained=""
    if [[ "$link_gen $link_lanes" != "$max_gen $max_lanes" ]]; then
      downtrained=" (trained below the card's $max_gen $max_lanes: check the slot, riser and BIOS bifurcation)"
    fi
    if [[ -z "${device_rate[$device]:-}" ]]; then
      report SKIP "$check" "$arithmetic$downtrained; line rate unknown (no interface speed, unknown model): compare by hand"
      continue
    fi
    local demand=${device_rate[$device]} verdict
    [[ -n "${unknown_rate[$device]:-}" ]] && demand_note=" (some ports' rate unknown)" || demand_note=""
    verdict=$(awk -v have="$gbps" -v need="$demand" 'BEGIN { print (need > have) ? "FAIL" : (need > 0.9 * have) ? "WARN" : "PASS" }')
    case "$verdict" in
      PASS) report PASS "$check" "$arithmetic >= $demand Gbit/s of line rate$demand_note$downtrained" ;;
      WARN) report WARN "$check" "$arithmetic carries $demand Gbit/s of line rate$demand_note with under 10% left for PCIe protocol overhead$downtrained" ;;
      FAIL) report FAIL "$check" "$arithmetic < $demand Gbit/s of line rate$demand_note: the slot caps these ports$downtrained; use a Gen4 x16 slot (Gen3 x16 carries one 100G port)" ;;
    esac
  done
}
