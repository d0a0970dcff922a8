"""The two independent LACP partners braid is tested against, each run by the test inside the
test's namespace and stopped by PID: Open vSwitch (userspace datapath) and DPDK's own bonding
PMD in mode 4 driven through dpdk-testpmd. Both bond the namespace ends of the member veths
(members[0], members[1]) and forward to and from a traffic port (`traffic`), and both answer
the same question: per member, the partner's own actor state bits (`actor_states()`)."""

import os
import pathlib
import re
import signal
import subprocess
import time

import pexpect

from traffic import ACTIVITY, AGGREGATION, COLLECTING, DEFAULTED, DISTRIBUTING, EXPIRED, SYNC, \
    TIMEOUT

OVS_SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"
# net_af_packet's default ring is 512 frames per queue: a fraction of a second of test traffic,
# less than a busy 2-core machine may keep a polling thread off the CPU (the kernel then drops
# frames where nobody counts them). braid's worker is pinned and gets its share: 4096 frames
# (8 MiB, locked) ride out a second. testpmd's forwarding lcore has been seen starved for more
# than that: 8192 frames (16 MiB; a frame must hold the 1500-byte MTU) hold 4 s of its port's
# traffic.
AF_PACKET_RING = "framecnt=4096"
TESTPMD_AF_PACKET_RING = "framecnt=8192"

# Words both OVS (lacp/show) and testpmd (show bonding lacp info) print for the state bits.
STATE_WORDS = {
    "activity": ACTIVITY, "active": ACTIVITY, "timeout": TIMEOUT, "aggregation": AGGREGATION,
    "synchronized": SYNC, "synchronization": SYNC, "collecting": COLLECTING,
    "distributing": DISTRIBUTING, "defaulted": DEFAULTED, "expired": EXPIRED,
}


READY = SYNC | COLLECTING | DISTRIBUTING


def state_bits(words):
    bits = 0
    for word in words.lower().split():
        bits |= STATE_WORDS.get(word, 0)
    return bits


def _kill(process):
    """Stops a process this test started, by PID: SIGTERM, then SIGKILL after 10 s."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class OvsPartner:
    """ovsdb-server and ovs-vswitchd in the namespace, every file of theirs under `directory`
    (nothing under /var/run/openvswitch; the system's OVS service is never used), a netdev
    (userspace) bridge with an LACP bond over the members and the traffic port (none: the
    bridge's own internal port "br0" is the far host)."""

    name = "ovs"

    def __init__(self, lab, directory, members, traffic):
        self.lab, self.members, self.traffic = lab, members, traffic
        self.dir = pathlib.Path(directory) / "ovs"
        self.run_dir = self.dir / "run"
        self.env = dict(os.environ, OVS_RUNDIR=str(self.run_dir), OVS_DBDIR=str(self.dir / "db"),
                        OVS_LOGDIR=str(self.dir / "log"), OVS_SYSCONFDIR=str(self.dir / "etc"))
        self.db_sock = self.run_dir / "db.sock"
        self.vswitchd_ctl = self.run_dir / "ovs-vswitchd.ctl"
        self.ovsdb = None
        self.vswitchd = None
        self.basis = 0

    @property
    def pid(self):
        return self.vswitchd.pid

    def _in_ns(self, *argv, **kwargs):
        return subprocess.Popen(["ip", "netns", "exec", self.lab.ns, *map(str, argv)],
                                env=self.env, **kwargs)

    def vsctl(self, *words):
        result = subprocess.run(["ovs-vsctl", f"--db=unix:{self.db_sock}", "--timeout=20",
                                 *map(str, words)], capture_output=True, text=True,
                                env=self.env, timeout=30)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def appctl(self, *words):
        result = subprocess.run(["ovs-appctl", "-t", str(self.vswitchd_ctl), *map(str, words)],
                                capture_output=True, text=True, env=self.env, timeout=30)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def start(self):
        for sub in ("run", "db", "log", "etc"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        db = self.dir / "db" / "conf.db"
        subprocess.run(["ovsdb-tool", "create", str(db), OVS_SCHEMA], check=True, env=self.env)
        with open(self.dir / "log" / "stdout.log", "w") as log:
            self._start_daemons(db, log)
        # balance-tcp, not balance-slb: SLB hashes the source MAC (and VLAN) only, and every
        # test flow has the same MACs, so SLB would put them all on one member; balance-tcp
        # hashes the 5-tuple (it needs LACP, which is what is tested). No rebalancing: flows
        # stay where the hash put them, so per-member counts mean the same all test long.
        self.vsctl("add-br", "br0", "--", "set", "bridge", "br0", "datapath_type=netdev",
                   "other_config:mac-aging-time=3600",
                   "--", "add-bond", "br0", "bond0", *self.members, "lacp=active",
                   "bond_mode=balance-tcp", "other_config:lacp-time=fast",
                   "other_config:bond-rebalance-interval=0",
                   *(["--", "add-port", "br0", self.traffic] if self.traffic else []))
        return self

    def _start_daemons(self, db, log):
        self.ovsdb = self._in_ns("ovsdb-server", db, f"--remote=punix:{self.db_sock}",
                                 f"--pidfile={self.run_dir / 'ovsdb-server.pid'}",
                                 f"--unixctl={self.run_dir / 'ovsdb-server.ctl'}",
                                 f"--log-file={self.dir / 'log' / 'ovsdb-server.log'}",
                                 stdout=log, stderr=subprocess.STDOUT)
        self._wait_for(self.db_sock, self.ovsdb, "ovsdb-server")
        self.vsctl("--no-wait", "init")
        self.vswitchd = self._in_ns("ovs-vswitchd", f"unix:{self.db_sock}",
                                    f"--pidfile={self.run_dir / 'ovs-vswitchd.pid'}",
                                    f"--unixctl={self.vswitchd_ctl}",
                                    f"--log-file={self.dir / 'log' / 'ovs-vswitchd.log'}",
                                    stdout=log, stderr=subprocess.STDOUT)
        self._wait_for(self.vswitchd_ctl, self.vswitchd, "ovs-vswitchd")

    @staticmethod
    def _wait_for(path, process, what, timeout=30):
        deadline = time.monotonic() + timeout
        while not pathlib.Path(path).exists():
            assert process.poll() is None, f"{what} exited with {process.returncode}"
            assert time.monotonic() < deadline, f"{what}: {path} never appeared"
            time.sleep(0.05)

    def lacp_show(self):
        return self.appctl("lacp/show", "bond0")

    def bond_show(self):
        return self.appctl("bond/show", "bond0")

    def actor_states(self):
        """{member: actor state bits} from lacp/show."""
        states, member = {}, None
        for line in self.lacp_show().splitlines():
            found = re.match(r"\s*(?:member|slave): (\S+):", line)
            if found:
                member = found.group(1)
            found = re.match(r"\s*actor state:(.*)", line)
            if found and member is not None:
                states[member] = state_bits(found.group(1))
        return states

    def spread(self):
        """Once both members are enabled: OVS's userspace datapath balances balance-tcp by
        recirculation, and gives all 256 hash buckets a member in one go (a disabled one's to
        the active member) as soon as the bond first outputs, often while LACP has enabled only
        one member; with rebalancing off they all stay there. A new hash basis resets the
        buckets (bond_reconfigure), and they are dealt out again over both."""
        self.basis += 1
        self.vsctl("set", "port", "bond0", f"other_config:bond-hash-basis={self.basis}")

    def enabled_members(self):
        """Members bond/show calls enabled: what OVS actually hashes flows onto."""
        return set(re.findall(r"^(?:member|slave) (\S+): enabled", self.bond_show(), re.M))

    def ready(self, member):
        """Sync, Collecting, Distributing in its LACPDUs, and enabled in the bond."""
        return (self.actor_states().get(member, 0) & READY == READY
                and member in self.enabled_members())

    def kill(self):
        """kill -9 of ovs-vswitchd (ovsdb-server stays: it carries no traffic)."""
        os.kill(self.vswitchd.pid, signal.SIGKILL)
        self.vswitchd.wait()

    def close(self):
        _kill(self.vswitchd)
        _kill(self.ovsdb)


class TestpmdPartner:
    """dpdk-testpmd in the namespace: net_af_packet ports on the members (0, 1) and on the
    traffic port (2), net_bonding0 in mode 4 over the first two (port 3), io forwarding
    between 2 and 3. testpmd's own --file-prefix; --no-huge, --no-pci like braid."""

    name = "testpmd"
    BOND_PORT = 3
    # Neither lcore pinned: testpmd's forwarding lcore polls without a pause, and pinned on
    # braid's worker CPU the kernel's scheduler (EEVDF) starved it for seconds at a time in
    # favour of braid's worker, which sleeps in syscalls often (LACPDUs were late, frames
    # lost in full rings). Left free, it runs wherever there is room.
    LCORES = "--lcores=0@(0,1),1@(0,1)"
    LOG_NAME = "testpmd.log"
    PREFIX_TAG = "tp"

    def __init__(self, lab, directory, members, traffic, member_options=""):
        """`member_options`: more net_af_packet devargs of the members (",qdisc_bypass=0": a
        tc filter on their egress sees what the PMD sends)."""
        self.ns, self.members, self.traffic = lab.ns, members, traffic
        self.member_options = member_options
        self.log_path = pathlib.Path(directory) / self.LOG_NAME
        self.prefix = f"{self.ns}{self.PREFIX_TAG}"
        self.child = self.log = None

    @property
    def pid(self):
        return self.child.pid

    def traffic_vdev(self):
        """Port 2, what the bond forwards to and from."""
        return f"net_af_packet2,iface={self.traffic},{TESTPMD_AF_PACKET_RING}"

    def start(self):
        argv = ["netns", "exec", self.ns, "dpdk-testpmd", self.LCORES,
                "--no-huge", "-m", "512", "--no-pci", f"--file-prefix={self.prefix}",
                *(f"--vdev=net_af_packet{i},iface={member},{TESTPMD_AF_PACKET_RING}"
                  f"{self.member_options}" for i, member in enumerate(self.members)),
                f"--vdev={self.traffic_vdev()}",
                # DPDK 22.11 names members "slave"; l34 spreads flows (default l2: one member).
                "--vdev=net_bonding0,mode=4,slave=net_af_packet0,slave=net_af_packet1,"
                "xmit_policy=l34",
                "--", "-i", "--forward-mode=io", "--total-num-mbufs=16384"]
        self.log = open(self.log_path, "w")
        self.child = pexpect.spawn("ip", argv, encoding="utf-8", timeout=30, logfile=self.log,
                                   dimensions=(500, 200))
        self.child.expect_exact("testpmd> ")
        self.cmd("set portlist 2,3")
        started = self.cmd("start")
        assert "Not all ports were started" not in started, f"testpmd: see {self.log_path}"
        return self

    def cmd(self, line):
        """Runs a console command; returns what it printed. Whatever testpmd printed unasked
        (link events, a second prompt) is skipped first: the output starts after the echo."""
        while True:
            try:
                self.child.read_nonblocking(65536, timeout=0)
            except (pexpect.TIMEOUT, pexpect.EOF):
                break
        self.child.sendline(line)
        self.child.expect_exact(line)
        self.child.expect_exact("testpmd> ")
        return self.child.before

    def lacp_info(self):
        return self.cmd(f"show bonding lacp info {self.BOND_PORT}")

    def bond_config(self):
        return self.cmd(f"show bonding config {self.BOND_PORT}")

    def actor_states(self):
        """{member: actor state bits} from 'show bonding lacp info' (slave port i = member i)."""
        states, member, actor = {}, None, False
        for line in self.lacp_info().splitlines():
            found = re.match(r"\s*Slave Port: (\d+)", line)
            if found:
                member = self.members[int(found.group(1))]
            if "Actor detail info" in line:
                actor = True
            elif "Partner detail info" in line:
                actor = False
            found = re.match(r"\s*port state:(.*)", line)
            if found and actor and member is not None:
                states[member] = state_bits(found.group(1))
        return states

    def ready(self, member):
        return self.actor_states().get(member, 0) & READY == READY

    def spread(self):
        """Nothing to do: the PMD hashes every frame afresh over the distributing members."""

    def kill(self):
        os.kill(self.child.pid, signal.SIGKILL)
        self.child.wait()

    def close(self):
        if self.child is not None and self.child.isalive():
            try:
                self.child.sendline("quit")
                self.child.expect(pexpect.EOF, timeout=15)
            except (pexpect.TIMEOUT, pexpect.EOF, OSError):
                pass
            if self.child.isalive():
                os.kill(self.child.pid, signal.SIGKILL)
                self.child.wait()
        if self.log is not None:
            self.log.close()


PARTNERS = {"ovs": OvsPartner, "testpmd": TestpmdPartner}
