"""The interop rig: braid's LACP bond (members m0, m1 on net_af_packet over veths gw0, gw1) against
a partner (OVS or testpmd, partners.py, or another braid, BraidPartner) bonding the far ends sw0,
sw1 in a namespace, traffic sent and received by the test at both ends, taps on both ends of every
member link.

    host namespace                                  test namespace (lab.ns)
    bx -- bh [braid: host port]  m0 gw0 ======== sw0  [partner bond]  pt -- px
                                 m1 gw1 ======== sw1
    stream 'O' (outbound): bx -> braid -> gw0|gw1 -> partner -> px
    stream 'I' (inbound):  px -> partner -> sw0|sw1 -> braid -> bx
    stream 'K' (testpmd only): a slow inbound keepalive, see TESTPMD_PUMP_PPS

Taps: "bx" and "px" (what was delivered), "gw0"/"gw1" (frames the partner sent on that member,
and its LACPDUs), "sw0"/"sw1" (frames braid sent on that member, and braid's LACPDUs)."""

import pathlib
import shutil
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "app"))
from braidlib import BRAID, ctl, ctl_json, stop, wait_for  # noqa: E402

from netlab import NetLab  # noqa: E402
from partners import AF_PACKET_RING, PARTNERS  # noqa: E402
from traffic import Stream, Taps  # noqa: E402

# Two MACs that no interface has: the test's hosts at either end (OVS learns them).
BRAID_SIDE_MAC = "02:b1:00:00:00:01"
PARTNER_SIDE_MAC = "02:b1:00:00:00:02"
DATA_PPS = 2000
# DPDK's bonding PMD in mode 4 sends its LACPDUs only from the application's TX burst, and
# testpmd's io forwarding calls TX burst only when it received something: without traffic into
# the traffic port, the PMD sends no LACPDU at all and braid's partner expires. This stream
# keeps it sending, as any real application over net_bonding would.
TESTPMD_PUMP_PPS = 200

MEMBERS = ("m0", "m1")


def wait_until(predicate, timeout_s, period_s=0.05, what="condition"):
    """Polls predicate() until it returns something true; returns that, or raises."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(period_s)


def runtime_config(socket_path):
    """The end of every interop test's braid config: one worker on lcore 1, the host port
    cross-connected to the bond "uplink", the console on `socket_path`, no metrics listener."""
    return f"""\
workers:
  lcores: [1]
cross_connect:
  - [host, uplink]
control:
  socket: {socket_path}
metrics:
  listen: "off"
"""


def braid_config(socket_path, members, host_if=None, fallback=True, host_device=None,
                 bond_extra="", member_options=""):
    """braid's config for the rig: the host port on net_af_packet over `host_if`, or on
    `host_device` (host_bond.py's net_tap), and the LACP bond over the member interfaces;
    `bond_extra`: more keys of the bond (YAML lines, indented like `mode`); `member_options`:
    more net_af_packet devargs of the members (",qdisc_bypass=0")."""
    # A member needs a TX queue per worker plus the control thread's LACPDU queue: qpairs=2.
    # Without it braid stops at start-up with: port "m0" (net_af_packet0,iface=...): needs 2 TX
    # queues (one per worker) but the device has 1; use fewer workers: Invalid argument.
    # The second RX queue this brings is polled too: slow_steering auto finds no rte_flow on
    # net_af_packet and hands that queue to the worker (the kernel fans a member's frames out
    # over both queue sockets, so an unpolled one would lose half of them).
    member_ports = "".join(
        f'  - {{name: {name}, device: "net_af_packet{i},iface={ifname},qpairs=2,'
        f'{AF_PACKET_RING}{member_options}"}}\n'
        for i, (name, ifname) in enumerate(zip(MEMBERS, members)))
    host_device = host_device or f"net_af_packet{len(members)},iface={host_if},{AF_PACKET_RING}"
    return f"""\
ports:
  - {{name: host, device: "{host_device}"}}
{member_ports}bonds:
  - name: uplink
    members: [{", ".join(MEMBERS[:len(members)])}]
    mode: lacp
    lacp: {{rate: fast, fallback: {"true" if fallback else "false"}}}
{bond_extra}{runtime_config(socket_path)}"""


def remove_runtime_dir(prefix):
    """EAL leaves /var/run/dpdk/<file-prefix> behind even with --no-huge: remove ours (only
    once the process that made it has exited)."""
    if prefix:
        shutil.rmtree(pathlib.Path("/var/run/dpdk") / prefix, ignore_errors=True)


class Braid:
    """A braid process on a generated config, restartable; braidctl through its socket."""

    def __init__(self, directory, config_text, prefix, socket_path, netns=None):
        self.dir = pathlib.Path(directory)
        self.netns = netns  # run inside this network namespace (its ports are there)
        self.socket = str(socket_path)
        self.config = self.dir / "braid.yaml"
        self.config.write_text(config_text)
        self.prefix = prefix
        self.process = None
        self.starts = 0

    def start(self):
        pathlib.Path(self.socket).unlink(missing_ok=True)
        self.starts += 1
        log_path = self.dir / f"braid{self.starts}.log"
        with open(log_path, "w") as log:
            # Main lcore on CPU 0, the worker on CPU 1: two CPUs, as on the CI machines.
            in_netns = ["ip", "netns", "exec", self.netns] if self.netns else []
            self.process = subprocess.Popen(
                [*in_netns, BRAID, "--config", str(self.config), "--stats-interval", "0", "--",
                 f"--file-prefix={self.prefix}", "--lcores=0@0,1@1"],
                stdout=log, stderr=subprocess.STDOUT)
        wait_for(self.socket, self.process, log_path)
        return self

    def stop(self):
        """SIGTERM (braid stops its workers, closes its ports and exits); returns once it has."""
        if self.process is not None:
            stop(self.process)
            self.process = None

    def ctl(self, *words, check=True):
        return ctl({"socket": self.socket}, *words, check=check)

    def json(self, *words):
        return ctl_json({"socket": self.socket}, *words)

    def bond(self):
        return self.json("show", "bond", "uplink")["uplink"]

    def members(self):
        return {m["member"]: m for m in self.bond()["members"]}

    def distributing(self):
        return {name for name, m in self.members().items() if m["distributing"]}

    def lacp_ports(self):
        return {p["member"]: p for p in self.json("show", "lacp", "uplink")["uplink"]["ports"]}

    def drops(self):
        result = self.json("show", "drops")
        return {row["reason"]: row["packets"] for row in result["drops"]}

    def events(self):
        """The bond's recent events as (monotonic ns, text). The JSON gives each event's age
        at the time of the call ("-1.234s"), so its time is the call's midpoint minus the age,
        good to the call's duration plus a millisecond."""
        before = time.monotonic_ns()
        recent = self.bond()["recent_events"]
        now = (before + time.monotonic_ns()) // 2
        return [(now - int(float(e["age"].lstrip("-").rstrip("s")) * 1e9), e["event"])
                for e in recent]


class BraidPartner:
    """Another braid as the partner (partners.py's interface): its bond over the namespace ends
    of the members, its host port on the traffic port, in the namespace. Its members send
    through the qdisc (qdisc_bypass=0), so that a tc filter on their egress (test_bfd.py's
    BfdCut) can steal what it sends; `bond_extra`: more keys of its bond (BFD)."""

    name = "braid"

    def __init__(self, lab, directory, members, traffic, bond_extra=""):
        self.lab, self.members = lab, members
        directory = pathlib.Path(directory) / "partner"
        directory.mkdir(parents=True, exist_ok=True)
        socket_path = directory / "braid.sock"
        config = braid_config(socket_path, members, traffic, fallback=False,
                              bond_extra=bond_extra, member_options=",qdisc_bypass=0")
        self.prefix = f"{lab.ns}bp"
        self.braid = Braid(directory, config, self.prefix, socket_path, netns=lab.ns)

    @property
    def pid(self):
        return self.braid.process.pid

    def start(self):
        self.braid.start()
        return self

    def actor_states(self):
        """{member interface: actor state bits} from its show lacp (letter i of "ATGSCD..":
        bit i)."""
        ports = self.braid.lacp_ports()
        return {ifname: sum(1 << bit for bit, letter in enumerate(ports[name]["actor_state"])
                            if letter != ".")
                for name, ifname in zip(MEMBERS, self.members)}

    def ready(self, member):
        """Sync, Collecting, Distributing in its LACPDUs, and distributing in its bond."""
        name = MEMBERS[self.members.index(member)]
        return (self.braid.lacp_ports()[name]["actor_state"][3:6] == "SCD"
                and name in self.braid.distributing())

    def spread(self):
        """Nothing to do: braid deals its buckets over every usable member on each change."""

    def kill(self):
        self.braid.process.kill()
        self.braid.process.wait()
        self.braid.process = None

    def close(self):
        self.braid.stop()


PARTNERS = {**PARTNERS, "braid": BraidPartner}


class Rig:
    """Everything one test runs, torn down however the test ends (senders and taps, braid, the
    partner, then the namespace and the veths). `partner_name` None: no partner, and the two
    members are the two ends of one veth (a looped cable)."""

    def __init__(self, directory, partner_name):
        self.dir = pathlib.Path(directory)
        self.partner_name = partner_name
        self.lab = NetLab()
        self.taps = Taps()
        self.streams = {}
        self.partner = None
        self.braid = None

    def build(self, fallback=True, bond_extra=None, partner_options=None):
        """`bond_extra(rig)`, called once the veths exist: more keys of braid's bond (YAML
        lines, see braid_config), e.g. BFD addresses that name the partner's MACs;
        `partner_options`: keyword arguments of the partner's class (BraidPartner's
        bond_extra)."""
        lab = self.lab.create()
        ns = lab.ns
        self.bh, self.bx = lab.name("bh"), lab.name("bx")
        lab.veth(self.bh, self.bx)
        self.taps.add("bx", self.bx)
        if self.partner_name is None:
            self.gw = [lab.name("la"), lab.name("lb")]
            lab.veth(*self.gw)
            self.sw = []
        else:
            self.gw = [lab.name("g0"), lab.name("g1")]
            self.sw = [lab.name("s0"), lab.name("s1")]
            self.pt, self.px = lab.name("pt"), lab.name("px")
            for gw, sw in zip(self.gw, self.sw):
                lab.veth(gw, sw, b_ns=ns)
            lab.veth(self.pt, self.px, a_ns=ns, b_ns=ns)
            self.taps.add("px", self.px, ns)
        for i, gw in enumerate(self.gw):
            self.taps.add(f"gw{i}", gw)
        for i, sw in enumerate(self.sw):
            self.taps.add(f"sw{i}", sw, ns)
        self.taps.start()
        self.streams["O"] = Stream("O", self.bx, None, BRAID_SIDE_MAC, PARTNER_SIDE_MAC, DATA_PPS)
        if self.partner_name is not None:
            self.streams["I"] = Stream("I", self.px, ns, PARTNER_SIDE_MAC, BRAID_SIDE_MAC,
                                       DATA_PPS)
            self.partner = PARTNERS[self.partner_name](lab, self.dir, self.sw, self.pt,
                                                       **(partner_options or {}))
            self.partner.start()
        if self.partner_name == "testpmd":
            self.streams["K"] = Stream("K", self.px, ns, PARTNER_SIDE_MAC, BRAID_SIDE_MAC,
                                       TESTPMD_PUMP_PPS, flows=16).start()
        socket_path = self.dir / "braid.sock"
        config = braid_config(socket_path, self.gw, self.bh, fallback,
                              bond_extra=bond_extra(self) if bond_extra else "")
        self.braid = Braid(self.dir, config, f"{ns}br", socket_path)
        self.braid.start()
        return self

    def close(self):
        for stream in self.streams.values():
            stream.close()
        self.taps.close()
        if self.braid is not None:
            self.braid.stop()
            remove_runtime_dir(self.braid.prefix)
        if self.partner is not None:
            self.partner.close()
            remove_runtime_dir(getattr(self.partner, "prefix", None))
        self.lab.close()

    # --- LACP ---------------------------------------------------------------------------------

    def partner_ready(self, member):
        """The partner collects and distributes on member i (partners.py: ready())."""
        return self.partner.ready(self.sw[member])

    def both_sides_up(self):
        """braid distributes on both members, the partner says it collects and distributes on
        both, and braid has heard it say so (its LACPDUs can lag its own state)."""
        if self.braid.distributing() != set(MEMBERS):
            return False
        if not all(self.partner_ready(i) for i in range(2)):
            return False
        return all(p["partner_state"][3:6] == "SCD" for p in self.braid.lacp_ports().values())

    def wait_lacp_up(self, timeout_s=20):
        """Waits until both sides collect and distribute on both members; returns the seconds."""
        start = time.monotonic()
        try:
            wait_until(self.both_sides_up, timeout_s, 0.1, "LACP up on both members, both sides")
        except AssertionError as timed_out:
            raise AssertionError(f"{timed_out}\n{self.describe_lacp()}") from None
        up_s = time.monotonic() - start
        self.partner.spread()
        return up_s

    def describe_lacp(self):
        """Both sides as they stand (for a failure's message): braid's LACP ports, its members'
        service and health, the last bond events, and the partner's actor states."""
        lines = [f"braid distributing: {sorted(self.braid.distributing())}"]
        for port, state in self.braid.lacp_ports().items():
            lines.append(f"braid lacp {port}: {state}")
        for command in (("show", "health"), ("show", "bond")):
            lines.append(self.braid.ctl(*command, check=False).stdout[-3000:])
        try:
            lines.append(f"partner actor states: {self.partner.actor_states()}")
        except Exception as error:  # noqa: BLE001 - a description must not hide the failure
            lines.append(f"partner: {error!r}")
        return "\n".join(lines)

    def learn_macs(self):
        """A few frames each way so that OVS's MAC learning knows both test hosts (before, its
        bridge floods); tagged 'W', they are counted nowhere."""
        sides = [(self.bx, None, BRAID_SIDE_MAC, PARTNER_SIDE_MAC)]
        if self.partner is not None:
            sides.append((self.px, self.lab.ns, PARTNER_SIDE_MAC, BRAID_SIDE_MAC))
        for ifname, ns, src, dst in sides:
            warm = Stream("W", ifname, ns, src, dst, 1, flows=4)
            warm.send(8)
            warm.close()
        time.sleep(0.3)

    # --- traffic ------------------------------------------------------------------------------

    def start_both_ways(self):
        """MACs learnt, traffic both ways for a second, and the partner sending on both
        members; returns when the traffic began (monotonic ns)."""
        self.learn_macs()
        t_start = time.monotonic_ns()
        self.start_traffic()
        time.sleep(1.0)
        before = [self.inbound_on(i, t_start) for i in range(2)]
        assert all(before), f"the partner must send on both members first: {before}" + (
            self.partner.bond_show() if self.partner_name == "ovs" else "")
        return t_start

    def start_traffic(self, *names):
        for name in names or ("O", "I"):
            self.streams[name].start()

    def stop_traffic(self, *names):
        for name in names or ("O", "I"):
            self.streams[name].stop()

    def inbound_pps(self):
        """What the partner sends towards braid: the inbound stream and testpmd's pump."""
        return DATA_PPS + (TESTPMD_PUMP_PPS if "K" in self.streams else 0)

    def per_member(self, stream, since_ns=0, until_ns=None):
        """Frames of `stream` seen crossing each member link (taps at the receiving end)."""
        side = "sw" if stream == "O" else "gw"
        return [self.taps[f"{side}{i}"].count(stream, since_ns, until_ns) for i in range(2)]

    def inbound_on(self, member, since_ns=0, until_ns=None):
        """Data frames (every inbound stream) the partner put on member i."""
        tap = self.taps[f"gw{member}"]
        return sum(tap.count(s, since_ns, until_ns) for s in ("I", "K"))

    def last_inbound_on(self, member, since_ns, until_ns):
        tap = self.taps[f"gw{member}"]
        times = [t for t in (tap.last(s, since_ns, until_ns) for s in ("I", "K")) if t]
        return max(times) if times else None

    def lacpdus_between(self, tap, since_ns, until_ns):
        return sum(1 for t, _, _ in self.taps[tap].lacpdus if since_ns <= t < until_ns)

    def accounting(self, stream):
        """Where the frames of `stream` went, after the taps settled: sent by the test, seen on
        each member link, delivered (unique) and duplicated at the far end."""
        far = "px" if stream == "O" else "bx"
        delivered = self.taps[far].unique(stream)
        return {
            "sent": self.streams[stream].sent,
            "on_members": self.per_member(stream),
            "delivered": len(delivered),
            "duplicates": self.taps[far].count(stream) - len(delivered),
            "tap_kernel_drops": sum(r.kernel_drops for r in self.taps.records.values()),
        }

    def stats(self, ifname, counter, in_ns=False):
        return self.lab.stat(ifname, counter, self.lab.ns if in_ns else None)
