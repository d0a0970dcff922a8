"""braid as a host's own bond0: the kernel's TCP goes out of a host-facing netdev (net_tap) into
braid, over braid's LACP bond on two veth members, into Open vSwitch's userspace bridge in a
second namespace, whose internal port is the far host. iperf3 (Debian) runs at both ends, a
dumpcap at the far end records when every data segment arrived, and a member can fail
mid-transfer at the far end of its cable (carrier goes with it).

    host namespace (host.ns)                                  far namespace (far.ns)
    kernel TCP 10.99.0.1 -- <tap> [braid: host]  m0 g0 ====== s0  [OVS bond0]  br0 10.99.0.2
                                                 m1 g1 ====== s1

The same rig runs with DPDK's own bonding PMD (testpmd: net_tap + net_bonding mode 4 + io
forwarding) in braid's place, the baseline of the host-bond benchmark."""

import json
import pathlib
import struct
import subprocess
import time
from types import SimpleNamespace

from interop_lib import MEMBERS, Braid, braid_config, remove_runtime_dir, wait_until
from netlab import NetLab, sh
from partners import OvsPartner, TestpmdPartner, _kill

HOST_ADDRESS = "10.99.0.1"
FAR_ADDRESS = "10.99.0.2"
IPERF_PORT = 5201
# An IPv4+TCP header with timestamps, and a byte of payload: shorter frames are bare ACKs.
DATA_SEGMENT_MIN_LEN = 14 + 20 + 32 + 1
# How long before the failure a stall may begin and still be the failure's: the segments in
# flight on the member when its far end went down (a round trip on veths, under load).
FAILURE_CAUSED_STALL_LEAD_NS = 100_000_000


class TestpmdHostBond(TestpmdPartner):
    """DPDK's net_bonding in testpmd where braid would be: net_tap (port 2, the host's netdev)
    cross-connected by io forwarding with net_bonding mode 4 l34 over the members (port 3)."""

    name = "testpmd net_bonding"
    netdev = None
    LCORES = "--lcores=0@0,1@1"  # as braid's: main lcore on CPU 0, the forwarding one on 1
    LOG_NAME = "testpmd-host.log"
    PREFIX_TAG = "tb"

    def __init__(self, directory, netns, tap, members):
        super().__init__(SimpleNamespace(ns=netns), directory, members, tap)

    def traffic_vdev(self):
        return f"net_tap0,iface={self.traffic}"

    def distributing(self):
        found = [line for line in self.bond_config().splitlines() if "Active Slaves" in line]
        return {MEMBERS[i] for i in range(2) if found and f"{i}" in found[0].split(":", 1)[1]}

    def close(self):
        super().close()
        remove_runtime_dir(self.prefix)


class BraidHostBond:
    """braid with its host port on a net_tap netdev, its LACP bond over the members."""

    name = "braid"

    def __init__(self, directory, netns, tap, members):
        directory = pathlib.Path(directory) / f"braid-{netns}"
        directory.mkdir()
        socket_path = directory / "braid.sock"
        config = braid_config(socket_path, members, host_device=f"net_tap0,iface={tap}",
                              fallback=False)
        self.braid = Braid(directory, config, f"{netns}br", socket_path, netns=netns)

    def start(self):
        self.braid.start()
        return self

    def distributing(self):
        return self.braid.distributing()

    def settle(self):
        """Nothing to do: braid deals the buckets out over every distributing member."""

    def close(self):
        self.braid.stop()
        remove_runtime_dir(self.braid.prefix)


class OvsSwitch:
    """The far end as Open vSwitch: its userspace bridge bonds the members (balance-tcp, LACP)
    and its internal port (a tap named after the bridge) is the far host's netdev."""

    name = "ovs"

    def __init__(self, directory, lab, tap, members):
        del tap  # the internal port is the bridge's own, "br0"
        self.members = members
        self.ovs = OvsPartner(lab, directory, members, None)

    def start(self):
        self.ovs.start()
        self.netdev = "br0"
        return self

    def distributing(self):
        return {MEMBERS[i] for i, m in enumerate(self.members) if self.ovs.ready(m)}

    def settle(self):
        self.ovs.spread()

    def close(self):
        self.ovs.close()


class BraidSwitch(BraidHostBond):
    """The far end as a second braid, its host port the far host's netdev."""

    def __init__(self, directory, lab, tap, members):
        super().__init__(directory, lab.ns, tap, members)
        self.netdev = tap


BONDS = {"braid": BraidHostBond, "testpmd": TestpmdHostBond}
SWITCHES = {"ovs": OvsSwitch, "braid": BraidSwitch}


def read_pcap_times(path, min_len, flow_port_offset=0):
    """(time in ns, flow) of every frame of at least `min_len` bytes in a classic pcap file
    (dumpcap -P, microsecond or nanosecond stamps); flow is the TCP source port (offset 0) or
    destination port (2)."""
    data = pathlib.Path(path).read_bytes()
    magic = struct.unpack_from("<I", data, 0)[0]
    scale = {0xA1B2C3D4: 1000, 0xA1B23C4D: 1}[magic]
    offset, frames = 24, []
    while offset + 16 <= len(data):
        seconds, fraction, captured, length = struct.unpack_from("<IIII", data, offset)
        offset += 16
        if length >= min_len and captured >= 14 + 20 + 2:
            ihl = (data[offset + 14] & 0x0F) * 4
            port = struct.unpack_from("!H", data, offset + 14 + ihl + flow_port_offset)[0]
            frames.append((seconds * 1_000_000_000 + fraction * scale, port))
        offset += captured
    return frames


def longest_gaps(frames, since_ns, until_ns, began_after_ns=None):
    """The longest time without a data segment arriving: over all flows together, and for the
    flow that waited longest (each flow from its first segment to `until_ns`, when the transfer
    ended: a flow that went silent for good stalled until then). With `began_after_ns`, also the
    longest per-flow stall that began at or after it (0 otherwise)."""
    inside = [(t, f) for t, f in frames if since_ns <= t <= until_ns]
    overall, per_flow, last, after = 0, {}, {}, 0
    previous = None

    def flow_gap(flow, start, end):
        nonlocal after
        per_flow[flow] = max(per_flow.get(flow, 0), end - start)
        if began_after_ns is not None and start >= began_after_ns:
            after = max(after, end - start)

    for t, flow in inside:
        if previous is not None:
            overall = max(overall, t - previous)
        previous = t
        if flow in last:
            flow_gap(flow, last[flow], t)
        last[flow] = t
    if previous is not None:
        overall = max(overall, until_ns - previous)
    for flow, t in last.items():
        flow_gap(flow, t, until_ns)
    return overall, max(per_flow.values(), default=0), per_flow, after


class HostBondRig:
    """The namespaces, veths, OVS partner, the bond (braid or testpmd) and the far host's
    address; torn down by close() however the test ends."""

    def __init__(self, directory, bond="braid", switch="ovs"):
        self.dir = pathlib.Path(directory)
        self.bond_kind, self.switch_kind = bond, switch
        self.host = NetLab()
        self.far = NetLab()
        self.switch = self.bond = self.capture = self.pump = None

    def build(self):
        host, far = self.host.create(), self.far.create()
        self.tap = host.name("bd")
        self.gw = [host.name("g0"), host.name("g1")]
        self.sw = [far.name("s0"), far.name("s1")]
        for gw, sw in zip(self.gw, self.sw):
            far.veth(gw, sw, a_ns=host.ns, b_ns=far.ns)
            # The kernels see the members' frames too (AF_PACKET taps them, it does not own
            # them): they must not answer ARP for their hosts' addresses there, behind the
            # bonds' backs.
            host.write_sysctl(f"net/ipv4/conf/{gw}/arp_ignore", "8", host.ns)
            far.write_sysctl(f"net/ipv4/conf/{sw}/arp_ignore", "8", far.ns)
        self.switch = SWITCHES[self.switch_kind](self.dir, far, far.name("fd"), self.sw).start()
        self.far_netdev = self.switch.netdev
        self.bond = BONDS[self.bond_kind](self.dir, host.ns, self.tap, self.gw).start()
        self._address(host, self.tap, HOST_ADDRESS)
        self._address(far, self.far_netdev, FAR_ADDRESS)
        if self.bond_kind == "testpmd":
            # net_bonding sends LACPDUs only from the application's TX burst, which testpmd's
            # io forwarding calls only when the host port gave it something: a ping every
            # 10 ms keeps it bursting, as any application over net_bonding would.
            self.pump = subprocess.Popen(
                ["ip", "netns", "exec", host.ns, "ping", "-q", "-i", "0.01", FAR_ADDRESS],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return self

    @staticmethod
    def _address(lab, netdev, address):
        """The host's address on its netdev, once the bond (or switch) has made it."""
        wait_until(lambda: sh("ip", "link", "show", netdev, ns=lab.ns, check=False), 30,
                   what=f"the netdev {netdev}")
        lab.write_sysctl(f"net/ipv6/conf/{netdev}/disable_ipv6", "1", lab.ns)
        sh("ip", "addr", "add", f"{address}/24", "dev", netdev, ns=lab.ns)
        sh("ip", "link", "set", netdev, "up", ns=lab.ns)

    def wait_bond_up(self, timeout_s=30):
        start = time.monotonic()
        wait_until(lambda: self.bond.distributing() == set(MEMBERS)
                   and self.switch.distributing() == set(MEMBERS), timeout_s, 0.1,
                   "LACP distributing on both members, both sides")
        self.switch.settle()
        wait_until(lambda: subprocess.run(
            ["ip", "netns", "exec", self.host.ns, "ping", "-c", "1", "-W", "1", FAR_ADDRESS],
            capture_output=True).returncode == 0, 20, 0.2, "ping through the bond")
        return time.monotonic() - start

    def start_capture(self, reverse=False):
        """dumpcap at the receiving host (the far one; reverse: this host): every TCP segment
        of iperf3's data, 96 bytes of each."""
        self.pcap = self.dir / "receiver.pcap"
        self.capture_reverse = reverse
        ns, netdev = (self.host.ns, self.tap) if reverse else (self.far.ns, self.far_netdev)
        direction = "src" if reverse else "dst"
        self.capture = subprocess.Popen(
            ["ip", "netns", "exec", ns, "dumpcap", "-q", "-i", netdev, "-s", "96", "-P", "-B",
             "64", "-f", f"tcp {direction} port {IPERF_PORT}", "-w", str(self.pcap)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_until(lambda: self.pcap.exists() and self.pcap.stat().st_size >= 24, 20,
                   what="dumpcap's pcap file")

    def stop_capture(self):
        """Data segments that reached the receiver: (time in ns, the client's port)."""
        time.sleep(0.5)
        self.capture.terminate()
        self.capture.wait(timeout=10)
        return read_pcap_times(self.pcap, DATA_SEGMENT_MIN_LEN, 2 if self.capture_reverse else 0)

    def iperf(self, seconds, streams, fail_member_at=None, reverse=False, rate=None):
        """iperf3 from the host through the bond to the far host (reverse: the far host sends;
        rate: iperf3's -b, per stream);
        with fail_member_at, the far end of the member that carries most of it goes down that
        many seconds in. Returns (iperf3's JSON, the failed member's index, when in ns)."""
        server = subprocess.Popen(
            ["ip", "netns", "exec", self.far.ns, "iperf3", "-s", "-1", "-B", FAR_ADDRESS, "-p",
             str(IPERF_PORT)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(0.5)
            client = subprocess.Popen(
                ["ip", "netns", "exec", self.host.ns, "iperf3", "-c", FAR_ADDRESS, "-p",
                 str(IPERF_PORT), "-t", str(seconds), "-P", str(streams), "-J",
                 *(["-R"] if reverse else []), *(["-b", rate] if rate else [])], stdout=subprocess.PIPE, text=True)
            failed = None
            if fail_member_at is not None:
                before = self.member_frames(reverse)
                time.sleep(fail_member_at)
                after = self.member_frames(reverse)
                busiest = max(range(2), key=lambda i: after[i] - before[i])
                failed = (busiest, time.monotonic_ns(), time.clock_gettime_ns(time.CLOCK_REALTIME))
                NetLab.set_link(self.sw[busiest], False, self.far.ns)
            out, _ = client.communicate(timeout=seconds + 60)
            self.transfer_end_ns = time.clock_gettime_ns(time.CLOCK_REALTIME)
            assert client.returncode == 0, f"iperf3 failed: {out[-2000:]}"
            return json.loads(out), failed
        finally:
            _kill(server)

    def member_frames(self, reverse):
        """Frames each member's veth has carried towards the receiver so far."""
        if reverse:
            return [NetLab.stat(g, "rx_packets", self.host.ns) for g in self.gw]
        return [NetLab.stat(s, "rx_packets", self.far.ns) for s in self.sw]

    def close(self):
        for process in (self.capture, self.pump):
            if process is not None and process.poll() is None:
                _kill(process)
        if self.bond is not None:
            self.bond.close()
        if self.switch is not None:
            self.switch.close()
        self.far.close()
        self.host.close()


def summarize(result, frames, failed, transfer_end_ns):
    """Throughput, retransmissions and the longest stalls of one iperf3 run (frames: the
    receiver's capture, stop_capture(); transfer_end_ns: when iperf3's client exited, from
    iperf())."""
    end = result["end"]
    ports = {c["local_port"] for c in result["start"]["connected"]}
    sent = end["sum_sent"]
    summary = {
        "gbit_s": end["sum_received"]["bits_per_second"] / 1e9,
        "retransmits": sent.get("retransmits", 0),
        "bytes": end["sum_received"]["bytes"],
        "streams": len(end["streams"]),
        "stream_ports": ports,
    }
    # iperf3's control connection carries a few messages at the start and the end: only the
    # data streams' ports count.
    frames = [(t, f) for t, f in frames if f in ports]
    if frames:
        since = frames[0][0]
        # iperf3 stops sending a moment before its client exits (it then exchanges results): a
        # healthy stream's last segment is a few milliseconds before the exit.
        until = max(transfer_end_ns, frames[-1][0])
        # A stall the failure caused begins once the failed member's last delivered segment
        # is behind it: at the failure, less a round trip. One that began earlier is the
        # partner's loss (TCP backing off from it), whatever the failure did.
        began_after = failed[2] - FAILURE_CAUSED_STALL_LEAD_NS if failed is not None else None
        overall, flow, per_flow, after = longest_gaps(frames, since, until, began_after)
        summary.update(stall_all_ms=overall / 1e6, stall_flow_ms=flow / 1e6,
                       flows_seen=len(per_flow))
        if failed is not None:
            at = failed[2]
            summary["segments_after_failure"] = sum(1 for t, _ in frames if t > at)
            summary["stall_from_failure_ms"] = after / 1e6
    return summary
