"""braid's LLDP against lldpd (Debian's lldpd, the reference open-source 802.1AB agent), over a
veth whose far end is in a network namespace of its own:

    host namespace                          test namespace (lab.ns)
    [braid: bond uplink]  m0 g0 ========== s0  [lldpd -I s0]

lldpd hears braid's chassis (the bond's MAC), port (the member's name), system name and port
description; braid's `show lldp` (through braidctl) hears lldpd's chassis, port and system
name; lldpd stopping (SIGTERM: its shutdown LLDPDU) leaves braid's member without a neighbour.
lldpd runs in the foreground with its own socket and configuration, started and stopped by PID."""

import json
import os
import pathlib
import shutil
import subprocess
import time

import pytest

from interop_lib import Braid, remove_runtime_dir, runtime_config, wait_until
from netlab import NetLab

LLDPD = shutil.which("lldpd") or "/usr/sbin/lldpd"
LLDPCLI = shutil.which("lldpcli") or "/usr/sbin/lldpcli"
FAR_NAME = "lldpd-far"
BRAID_NAME = "braid-interop"

pytestmark = pytest.mark.skipif(not os.path.exists(LLDPD), reason="lldpd not installed (scripts/deps)")


class Lldpd:
    """lldpd in `ns` on `ifname` only, sending every second (what lldpcli's tx-interval allows),
    with a socket and a configuration of its own (the host's /etc/lldpd.d is not read)."""

    def __init__(self, ns, ifname, directory):
        self.ns, self.ifname = ns, ifname
        self.dir = pathlib.Path(directory)
        # Not under pytest's tmp_path: lldpcli is refused a socket in a directory only root may
        # enter (pytest's are 0700), so lldpd's socket goes in a directory of its own in /tmp.
        self.socket_dir = pathlib.Path(f"/tmp/braid-lldpd-{os.getpid()}-{ns}")
        self.socket_dir.mkdir(mode=0o755, exist_ok=True)
        self.socket_dir.chmod(0o755)
        self.socket = str(self.socket_dir / "lldpd.sock")
        self.conf = self.socket_dir / "lldpd.conf"  # read by the lldpcli lldpd runs, as well
        self.conf.write_text(f"configure system hostname {FAR_NAME}\n"
                             "configure lldp tx-interval 1\n")
        self.process = None

    def start(self):
        log = open(self.dir / "lldpd.log", "w")
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", self.ns, LLDPD, "-d", "-u", self.socket, "-I", self.ifname,
             "-O", str(self.conf)], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_until(lambda: os.path.exists(self.socket), 30, what="lldpd's socket")
        return self

    def cli(self, *words):
        """lldpcli's JSON answer; lldpd's socket refuses connections for a moment after it
        appears (it hands it to its unprivileged child), so a refusal is retried."""
        def attempt():
            result = subprocess.run(["ip", "netns", "exec", self.ns, LLDPCLI, "-u", self.socket,
                                     "-f", "json", *words], capture_output=True, text=True,
                                    timeout=30)
            return json.loads(result.stdout) if result.returncode == 0 else None
        return wait_until(attempt, 30, period_s=0.5, what=f"lldpcli {' '.join(words)}")

    def neighbours(self):
        """{chassis name or id: {"chassis": ..., "port": ...}} of what lldpd hears on ifname."""
        interfaces = self.cli("show", "neighbors").get("lldp", {}).get("interface", [])
        if isinstance(interfaces, dict):
            interfaces = [{name: value} for name, value in interfaces.items()]
        heard = {}
        for entry in interfaces:
            for name, neighbour in entry.items():
                if name != self.ifname:
                    continue
                chassis = neighbour.get("chassis", {})
                for chassis_name, info in chassis.items():
                    heard[chassis_name] = {"chassis": info, "port": neighbour.get("port", {})}
        return heard

    def own_port(self):
        """The port id lldpd announces on ifname ({"type": ..., "value": ...})."""
        interface = self.cli("show", "interfaces")["lldp"]["interface"][self.ifname]
        return interface["port"]["id"]

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        shutil.rmtree(self.socket_dir, ignore_errors=True)


def braid_config(socket_path, member_if, null_name):
    # qpairs=2: a TX queue for the worker and one for the control thread's LLDPDUs.
    return f"""\
ports:
  - {{name: host, device: "{null_name},no-rx=1"}}
  - {{name: m0, device: "net_af_packet0,iface={member_if},qpairs=2"}}
bonds:
  - name: uplink
    members: [m0]
    mode: static
    lldp: {{system_name: {BRAID_NAME}, tx_interval_s: 1}}
{runtime_config(socket_path)}"""


def braid_neighbour(braid):
    """The one neighbour braid's member m0 hears (a row of show lldp's neighbours), or None."""
    rows = [row for row in braid.json("show", "lldp", "uplink")["uplink"]["neighbours"]
            if row["member"] == "m0" and row["chassis_id"] is not None]
    return rows[0] if len(rows) == 1 else None


def test_lldpd_and_braid_hear_each_other(tmp_path):
    lab = NetLab().create()
    braid = lldpd = None
    try:
        gw, sw = lab.name("g0"), lab.name("s0")
        lab.veth(gw, sw, b_ns=lab.ns)
        socket_path = tmp_path / "braid.sock"
        braid = Braid(tmp_path, braid_config(socket_path, gw, f"net_null_{lab.ns}"),
                      f"{lab.ns}br", socket_path).start()
        lldpd = Lldpd(lab.ns, sw, tmp_path).start()

        # lldpd hears braid: the bond's MAC as chassis, the member's name as port.
        ours = braid.json("show", "lldp", "uplink")["uplink"]
        heard = wait_until(lambda: lldpd.neighbours().get(BRAID_NAME), 30,
                           what="lldpd to hear braid")
        print(f"\nlldpd hears: {json.dumps(heard)}")
        assert f"mac {heard['chassis']['id']['value']}" == ours["chassis_id"], (heard, ours)
        assert heard["chassis"]["id"]["type"] == "mac"
        assert heard["port"]["id"] == {"type": "ifname", "value": "m0"}, heard
        assert heard["port"]["descr"] == "member m0 of bond uplink", heard
        # TTL: tx_interval_s 1 x tx_hold 4 + 1 (lldpcli shows it under the port).
        assert heard["port"].get("ttl", heard["chassis"].get("ttl")) == "5", heard

        # braid hears lldpd: its chassis, its port as lldpd itself reports it, its system name.
        # (lldpd's first LLDPDU may go out before it read its configuration: the host name, then
        # a changed one with FAR_NAME, which braid takes as changed information.)
        neighbour = wait_until(
            lambda: (n := braid_neighbour(braid)) and n["system_name"] == FAR_NAME and n, 30,
            what=f"braid to hear lldpd as {FAR_NAME}")
        print(f"braid hears: {neighbour}")
        print(braid.ctl("show", "lldp", "uplink").stdout)
        far_port = lldpd.own_port()
        assert neighbour["system_name"] == FAR_NAME, neighbour
        subtype = {"mac": "mac", "ifname": "ifname", "local": "local"}[far_port["type"]]
        assert neighbour["port_id"] == f"{subtype} {far_port['value']}", (neighbour, far_port)
        assert neighbour["chassis_id"].startswith("mac "), neighbour
        members = {row["member"]: row for row in
                   braid.json("show", "lldp", "uplink")["uplink"]["members"]}
        assert members["m0"]["frames_in"] > 0 and members["m0"]["discarded"] == 0, members

        # lldpd goes away: its shutdown LLDPDU (or, at worst, its TTL) empties braid's table.
        lldpd.stop()
        wait_until(lambda: braid_neighbour(braid) is None, 30, what="braid to forget lldpd")
    finally:
        if lldpd is not None:
            lldpd.stop()
        if braid is not None:
            braid.stop()
            remove_runtime_dir(braid.prefix)
        lab.close()
