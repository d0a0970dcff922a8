"""LACP-preserving restart (doc/lacp.md "Restart without a flap"): `braidctl restart` saves each
member's LACP state and exits without telling the partner anything; the next braid, started on
the same file prefix, takes the state up at its first link up and says so in an LACPDU at once.
Against Open vSwitch (lacp-time=fast: it expires braid 3 s after braid's last LACPDU) and DPDK's
net_bonding in mode 4 (testpmd), on the interop rig with traffic both ways, braid is restarted
several times in a row: the partner must never stop collecting and distributing on braid's
members (sampled every few tens of ms from ovs-appctl lacp/show and testpmd's bonding state),
and braid's bond must be as before. A cold restart (SIGTERM, start) in the same test is the
comparison: the partner leaves distribution until braid's aggregate wait has passed.

Each test prints, per restart, the forwarding gap both ways (the longest silence of each stream
at its receiving end) and how long the partner was out of service; doc/benchmarks.md quotes
them."""

import os
import re
import time

import pytest

from interop_lib import MEMBERS, wait_until
from braidlib import Sampler  # noqa: E402 - interop_lib puts test/app on the path

PARTNERS = ["ovs", "testpmd"]
RESTARTS = int(os.environ.get("BRAID_RESTARTS", "3"))  # doc/benchmarks.md runs 10
RESTART_EXIT_STATUS = 75  # RestartCommand::kExitStatus


class PartnerWatch(Sampler):
    """Samples partner.ready() on both members from a thread; how long any was not ready. While
    it runs nothing else may ask the partner (testpmd's console serves one command at a time):
    ready_now is the latest answer."""

    def __init__(self, rig):
        super().__init__(0.02)
        self.rig = rig
        self.out_ns = 0
        self.samples = 0
        self.ready_now = False
        self.last_ns = time.monotonic_ns()

    def sample(self):
        ready = all(self.rig.partner_ready(i) for i in range(2))
        now = time.monotonic_ns()
        self.samples += 1
        if not ready:
            self.out_ns += now - self.last_ns
        self.last_ns = now
        self.ready_now = ready


def longest_silence_ms(tap, stream, since_ns, until_ns):
    times = sorted(t for t in tap.times.get(stream, ()) if since_ns <= t < until_ns)
    if len(times) < 2:
        return float("inf")
    return max(b - a for a, b in zip(times, times[1:])) / 1e6


def lacp_view(braid):
    """What must be the same after a restart: per member, actor and partner identity/state."""
    return {member: (row["actor_state"], row["partner_system"], row["partner_key"],
                     row["partner_port"], row["partner_state"])
            for member, row in braid.lacp_ports().items()}


def restart_braid(rig, how):
    """`how`: "resume" (braidctl restart) or "cold" (SIGTERM); then a new braid. Returns the
    seconds from the command to braid distributing on both members again, and to the old
    braid's exit."""
    t0 = time.monotonic()
    if how == "resume":
        said = rig.braid.ctl("restart").stdout
        assert "restarting" in said, said
        status = rig.braid.process.wait(timeout=20)
        assert status == RESTART_EXIT_STATUS, status
        rig.braid.process = None
    else:
        rig.braid.stop()
    exited_s = time.monotonic() - t0
    rig.braid.start()
    wait_until(lambda: rig.braid.distributing() == set(MEMBERS), 20, 0.02,
               "braid distributing on both members again")
    return time.monotonic() - t0, exited_s


def read_after_ms(log):
    """The new braid's own account: how long after the old one saved it read the state (process
    start, EAL, ports configured)."""
    found = re.search(r"saved by the previous braid (\d+) ms ago", log)
    return int(found.group(1)) if found else None


@pytest.mark.parametrize("partner", PARTNERS)
def test_restart_keeps_the_partners_aggregation(make_rig, partner):
    rig = make_rig(partner)
    rig.wait_lacp_up()
    rig.start_both_ways()
    time.sleep(0.5)
    before = lacp_view(rig.braid)
    results = []
    for round_number in range(RESTARTS + 1):
        how = "resume" if round_number < RESTARTS else "cold"
        t_start = time.monotonic_ns()
        with PartnerWatch(rig) as watch:
            back_s, exited_s = restart_braid(rig, how)
            if how == "resume":
                time.sleep(3.5)  # past a fast partner's expiry
            else:
                wait_until(lambda: watch.ready_now, 20, 0.05, "the partner back in service")
            t_end = time.monotonic_ns()
        gap_in = longest_silence_ms(rig.taps["bx"], "I", t_start, t_end)
        gap_out = longest_silence_ms(rig.taps["px"], "O", t_start, t_end)
        log = (rig.braid.dir / f"braid{rig.braid.starts}.log").read_text()
        resumed = sum(f"member {m} LACP resumed" in log for m in MEMBERS)
        results.append((how, back_s, exited_s, read_after_ms(log), watch.out_ns / 1e6,
                        watch.samples, gap_in, gap_out, resumed))
        if how == "resume":
            assert resumed == 2, log[-3000:]
            assert lacp_view(rig.braid) == before, (lacp_view(rig.braid), before)
            assert watch.out_ns == 0, (
                f"restart {round_number + 1}: the partner left distribution for "
                f"{watch.out_ns / 1e6:.0f} ms\n{rig.describe_lacp()}")
    rig.stop_traffic()
    print(f"\n[{partner}] restarts (how: s until braid distributes again [old braid exited; "
          f"new one read the state, after it was saved]; partner out of service ms over samples; "
          f"longest silence partner->braid, braid->partner ms; members resumed):")
    for how, back_s, exited_s, read_ms, out_ms, samples, gap_in, gap_out, resumed in results:
        print(f"[{partner}]   {how}: {back_s:.2f} s [exit {exited_s:.2f} s; read {read_ms} ms]; "
              f"partner out {out_ms:.0f} ms ({samples} samples); silence in {gap_in:.0f} ms, "
              f"out {gap_out:.0f} ms; resumed {resumed}")
    cold_out_ms = results[-1][4]
    assert cold_out_ms > 0, "a cold restart should have been a flap at the partner"
