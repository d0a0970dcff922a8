"""Member withdrawal from the LACP partner ("both ends", lib/bond/member_service.hpp): when braid
takes a member out of service it also tells its partner, in an LACPDU sent at once, to stop
sending on it (Synchronization, Collecting, Distributing cleared), and keeps collecting there
until the partner's LACPDU says it stopped distributing (acknowledged) or the patience
(lacp.withdraw.patience_ms, 1 s) runs out. Tested against Open vSwitch's userspace bond,
DPDK's net_bonding in mode 4 (testpmd) and another braid (interop_lib.BraidPartner), on the rig
interop_lib.py draws, traffic both ways:

- an admin drain (`set member m1 down`) and the member's return;
- a planned stop (SIGTERM): every member withdrawn, braid forwards until the partner let go;
- BFD down on a member (OVS, braid: the partners that run BFD): withdrawn for bfd_down, and
  back in sync once BFD is up again;
- a drain whose acknowledgement never arrives (testpmd's or braid's LACPDUs on m1 stolen; OVS
  never sends one, see RELEASE): braid stops collecting when the patience runs out.

Each test prints the time from braid's withdrawal, as its LACPDU reaches the partner's end of the
member (tap sw<i>), to the partner's last data frame on the member (tap gw<i>), both on the
kernel's receive timestamps, and how the withdrawal ended; doc/benchmarks.md quotes them."""

import re
import time

import pytest

from interop_lib import MEMBERS, wait_until
from netlab import sh
from test_bfd import (ADDRESSES, INTERVAL_MS, BfdCut, enable_ovs_bfd, micro_bfd_bond,
                      ovs_bfd_state, sessions, single_hop_bond)
from traffic import DISTRIBUTING, SYNC

PARTNERS = ["ovs", "testpmd", "braid"]
BFD_PARTNERS = ["ovs", "braid"]  # testpmd runs no BFD
# braid's withdrawal on the wire -> the partner's last frame on the member. OVS and braid react
# to an LACPDU when it arrives. DPDK's mode 4 runs its state machines from an alarm every 100 ms
# (BOND_MODE_8023AX_UPDATE_TIMEOUT_MS): up to a period, and room for a starved forwarding lcore.
STOPPED_WITHIN_MS = {"ovs": 30, "braid": 30, "testpmd": 250}
# How a withdrawal ends with each partner (show bond: last_release). braid (802.1AX 6.4.15)
# leaves COLLECTING_DISTRIBUTING when our Synchronization goes and says so in an LACPDU at once:
# acknowledged. DPDK's mode 4 does the same at its next 100 ms tick, but its TX machine sends at
# most one LACPDU per tx_period (BOND_8023AD_TX_MACHINE_PERIOD_MS, 500 ms): its answer comes up to
# 600 ms after our withdrawal, inside the 1 s patience (which exists for it), unless its
# forwarding lcore was starved that long.
# Open vSwitch stops using the member (lib/lacp.c: may_enable wants the partner's
# Synchronization) but its own Synchronization, Collecting and Distributing follow `attached`,
# which ignores ours, and it sends an LACPDU only when its own state changes or its 1 s timer
# fires: braid never hears it let go, and every withdrawal ends on the patience.
RELEASE = {"ovs": {"patience"}, "testpmd": {"acknowledged", "patience"},
           "braid": {"acknowledged"}}
PATIENCE_MS = 1000  # lacp.withdraw.patience_ms, braid's default
SHORT_TIMEOUT_S = 3.0  # 802.1AX Short_Timeout_Time: a cut of LACPDUs must end before it
NS = 1_000_000_000
# show bond prints event ages in ms; Braid.events() places them within the call's duration.
EVENT_SLACK_NS = 5_000_000
# The partner's BFD frames: OVS single-hop (RFC 5881), braid micro-BFD (RFC 7130).
BFD_PORT = {"ovs": 3784, "braid": 6784}


def now_ns():
    return time.monotonic_ns()


def delta(after, before):
    return {key: after[key] - before.get(key, 0) for key in after}


def service(braid, member="m1"):
    """The member's row of show bond's `service` table."""
    return {row["member"]: row for row in braid.bond()["service"]}[member]


def events_since(braid, since_ns):
    return [(t, text) for t, text in braid.events() if t >= since_ns - EVENT_SLACK_NS]


def event_ns(braid, pattern, since_ns):
    """When the bond logged its first event matching `pattern` since since_ns; None: not yet."""
    found = re.compile(pattern)
    return next((t for t, text in events_since(braid, since_ns) if found.search(text)), None)


def timeline(events, t0):
    return "; ".join(f"{(t - t0) / 1e6:+.0f} ms {text}" for t, text in events)


def wait_release(braid, member="m1", timeout_s=3):
    """Until the member's withdrawal has ended (show bond: last_release no longer pending)."""
    return wait_until(lambda: (row := service(braid, member))["last_release"] != "pending"
                      and row["last_release"] != "-" and row, timeout_s, 0.02,
                      f"{member}'s withdrawal to end")


def release_ms(row):
    """"acknowledged 12.3 ms" -> ("acknowledged", 12.3)."""
    how, waited, _ = row["last_release"].split()
    return how, float(waited)


def withdrawal_on_wire(rig, member, since_ns):
    """When braid's first LACPDU with Synchronization clear since since_ns reached the
    partner's end of `member` (tap sw<member>, the kernel's receive timestamp): braid's decision
    as the partner sees it. The bond's event times are good to a braidctl call (~10 ms)."""
    return next((t for t, actor, _ in list(rig.taps[f"sw{member}"].lacpdus)
                 if t >= since_ns and not actor & SYNC), None)


def partner_pdus(rig, member, since_ns, t0_ns):
    """The partner's LACPDUs on `member` since since_ns: 'ms after t0 actor-state', and when the
    first one with Synchronization or Distributing clear (its acknowledgement) arrived."""
    pdus = [(t, actor) for t, actor, _ in list(rig.taps[f"gw{member}"].lacpdus) if t >= since_ns]
    released = next((t for t, actor in pdus if actor & (SYNC | DISTRIBUTING)
                     != SYNC | DISTRIBUTING), None)
    text = ", ".join(f"{(t - t0_ns) / 1e6:+.1f} ms 0x{actor:02x}" for t, actor in pdus[:6])
    return text, released


def stopped_after(rig, member, t_withdrawn_ns, until_ns=None):
    """The partner's data frames on `member` from braid's withdrawal on (until until_ns: the
    member's return): (ms from the withdrawal to the last one, how many)."""
    last = rig.last_inbound_on(member, t_withdrawn_ns, until_ns)
    return ((last - t_withdrawn_ns) / 1e6 if last else 0.0,
            rig.inbound_on(member, t_withdrawn_ns, until_ns))


def stopped_text(kept_ms, frames):
    if not frames:
        return "no frame after the withdrawal"
    return f"its last frame {kept_ms:.1f} ms after the withdrawal ({frames} frames since)"


def ms(t_ns, t0_ns):
    return f"{(t_ns - t0_ns) / 1e6:.1f} ms" if t_ns else "never"


def lost_on(rig, member, until_ns=None):
    """Frames of stream 'I' the partner put on `member` (tap gw<member>) before until_ns that
    never reached bx."""
    tap = rig.taps[f"gw{member}"]
    delivered = rig.taps["bx"].unique("I")
    return sum(1 for t, seq in zip(tap.times.get("I", ()), tap.seqs.get("I", ()))
               if (until_ns is None or t < until_ns) and seq not in delivered)


def traffic_on_both_members(rig, since_ns, what):
    """Traffic both ways over both members since since_ns."""
    outbound, inbound = rig.per_member("O", since_ns), [rig.inbound_on(i, since_ns)
                                                        for i in range(2)]
    assert all(outbound) and all(inbound), f"{what}: outbound {outbound}, inbound {inbound}"
    return outbound, inbound


class LacpduCut(BfdCut):
    """Steals the LACPDUs (Slow Protocols, 0x8809) leaving `ifname` in the namespace: BfdCut's
    sink veth, a filter on the EtherType instead of the UDP port. The partner still hears
    braid; braid no longer hears it."""

    def __init__(self, lab, ifname):
        super().__init__(lab, ifname, None)

    def cut(self):
        sh("tc", "filter", "add", "dev", self.ifname, "egress", "protocol", "0x8809", "pref",
           "1", "u32", "match", "u32", "0", "0", "action", "mirred", "egress", "redirect", "dev",
           self.sink, ns=self.lab.ns)


def back_both_ways(rig, t_from_ns, what):
    """After a member returned: LACP up on both sides (OVS's buckets dealt again), then traffic
    both ways over both members in the second after. Returns the seconds from t_from_ns until
    LACP was up."""
    rig.wait_lacp_up(15)
    t_back = now_ns()
    time.sleep(1.0)
    rig.stop_traffic()
    rig.taps.settle()
    traffic_on_both_members(rig, t_back, what)
    return (t_back - t_from_ns) / NS


@pytest.mark.parametrize("partner", PARTNERS)
def test_admin_drain_partner_stops_sending_before_braid_stops_collecting(make_rig, partner):
    rig = make_rig(partner)
    rig.wait_lacp_up()
    rig.start_both_ways()
    drops_before = rig.braid.drops()
    t_cmd = now_ns()
    said = rig.braid.ctl("set", "member", "m1", "down").stdout
    assert "member m1 admin down: draining" in said, said
    t_event = wait_until(
        lambda: event_ns(rig.braid, r"member m1 partner withdrawn \(draining\)", t_cmd), 3,
        0.02, "the bond's `partner withdrawn (draining)` event")
    row = wait_release(rig.braid)
    wait_until(lambda: event_ns(rig.braid, r"member m1 drained", t_cmd), 3, 0.02,
               "the bond's `drained` event")
    events = events_since(rig.braid, t_cmd)
    time.sleep(0.5)  # traffic goes on: nothing more on m1 from either side
    rig.stop_traffic()
    rig.taps.settle()
    drops = delta(rig.braid.drops(), drops_before)
    t_wire = withdrawal_on_wire(rig, 1, t_cmd)
    assert t_wire is not None, "braid sent no LACPDU with Synchronization clear on m1"
    kept_ms, frames = stopped_after(rig, 1, t_wire)
    answers, t_released = partner_pdus(rig, 1, t_wire, t_wire)
    acc = rig.accounting("I")
    how, waited_ms = release_ms(row)
    print(f"\n[{partner}] drain of m1: braid's withdrawal on the wire {ms(t_wire, t_cmd)} after "
          f"the command (its event at {ms(t_event, t_cmd)}); the partner on m1: "
          f"{stopped_text(kept_ms, frames)}, its LACPDUs since: [{answers}]; braid: {how} "
          f"after {waited_ms:.1f} ms; not_collecting "
          f"+{drops['not_collecting']}; stream I {acc}\n[{partner}] m1 {row}\n[{partner}] "
          f"events: {timeline(events, t_wire)}")
    assert kept_ms <= STOPPED_WITHIN_MS[partner], (
        f"the partner sent on m1 for {kept_ms:.1f} ms after the withdrawal")
    assert how in RELEASE[partner], row
    if how == "acknowledged":
        assert t_released is not None, "acknowledged, but no such LACPDU crossed m1"
    assert (row["transmit"], row["partner"], row["collecting"]) == (
        "admin_down", "withdrawn (admin_down)", False), row
    assert "m1" not in rig.braid.distributing()
    # braid collected until the partner let go: nothing dropped, every inbound frame delivered.
    assert drops["not_collecting"] == 0, drops
    assert acc["sent"] == acc["delivered"] and acc["duplicates"] == 0, acc
    assert lost_on(rig, 0) == 0

    t_up = now_ns()
    said = rig.braid.ctl("set", "member", "m1", "up").stdout
    assert said.startswith("member m1 admin up"), said
    rig.start_traffic()
    back_s = back_both_ways(rig, t_up, "m1 after `set member m1 up`")
    row = service(rig.braid)
    print(f"[{partner}] set member m1 up: LACP up on both sides {back_s:.2f} s later, then "
          f"traffic both ways on m1; m1 {row}")
    assert (row["transmit"], row["partner"], row["collecting"]) == (
        "in_service", "in_sync", True), row


@pytest.mark.parametrize("partner", PARTNERS)
def test_planned_stop_loses_no_inbound_frame_while_braid_is_up(make_rig, partner):
    rig = make_rig(partner)
    rig.wait_lacp_up()
    t_start = rig.start_both_ways()
    log_path = rig.braid.dir / f"braid{rig.braid.starts}.log"
    t_term = now_ns()
    rig.braid.stop()
    t_exit = now_ns()
    time.sleep(0.5)  # the partner, told, sends nothing more onto the members
    rig.stop_traffic()
    rig.taps.settle()
    # What the partner put on the members while braid ran: all of it must have reached bx.
    arrived = [rig.taps[f"gw{i}"].count("I", t_start, t_exit) for i in range(2)]
    lost = [lost_on(rig, i, t_exit) for i in range(2)]
    wire = [withdrawal_on_wire(rig, i, t_term) for i in range(2)]
    assert all(wire), f"braid sent no LACPDU with Synchronization clear on m0/m1: {wire}"
    kept = [stopped_after(rig, i, t) for i, t in enumerate(wire)]
    answers = [partner_pdus(rig, i, t_term, t_term)[0] for i in range(2)]
    after_exit = [rig.inbound_on(i, t_exit) for i in range(2)]
    left = [line for line in log_path.read_text().splitlines() if "partners left" in line]
    print(f"\n[{partner}] SIGTERM: braid's withdrawals on the wire "
          f"{[ms(t, t_term) for t in wire]} after it, braid exited {ms(t_exit, t_term)} after "
          f"it; inbound on m0/m1 while braid ran {arrived}, lost {lost}; the partner on m0: "
          f"{stopped_text(*kept[0])}, on m1: {stopped_text(*kept[1])}; {after_exit} frames "
          f"after braid exited; its LACPDUs since the SIGTERM: m0 [{answers[0]}], m1 "
          f"[{answers[1]}]\n"
          f"[{partner}] log: {left}")
    assert left and re.search(r"bond uplink: partners left in [\d.]+ ms: m0 \w+", left[0]), left
    assert all(re.search(rf"{m} ({'|'.join(RELEASE[partner])})", left[0]) for m in MEMBERS), left
    # testpmd's is reported: it stops on a 100 ms tick, and its answer can wait past the
    # patience for its TX machine (RELEASE), so its last frames may come after braid stopped.
    if partner != "testpmd":
        assert lost == [0, 0], f"inbound frames lost while braid was still up: {lost}"


def bfd_rig(make_rig, partner):
    """The rig with BFD on both members, both ends, as test_bfd.py runs it (OVS: single-hop
    sessions; braid: micro-BFD), at 50 ms x 3; returns once LACP and BFD are up everywhere."""
    near, far = ADDRESSES[0]
    if partner == "ovs":
        rig = make_rig(partner, bond_extra=single_hop_bond)
        enable_ovs_bfd(rig)

        def partner_up():
            return all(ovs_bfd_state(rig, i) == "up" for i in range(2))
    else:
        rig = make_rig(partner, bond_extra=lambda rig: micro_bfd_bond(near, far, INTERVAL_MS),
                       partner_options={"bond_extra": micro_bfd_bond(far, near, INTERVAL_MS)})

        def partner_up():
            return all(s["state"] == "up" for s in sessions(rig.partner.braid).values())
    wait_until(lambda: all(s["state"] == "up" for s in sessions(rig.braid).values())
               and partner_up(), 30, 0.1, "BFD up on both members, both sides")
    rig.wait_lacp_up(20)  # BFD up: both members in service (bfd_down until then)
    return rig


@pytest.mark.parametrize("partner", BFD_PARTNERS)
def test_bfd_down_withdraws_the_member_from_the_partner(make_rig, partner):
    rig = bfd_rig(make_rig, partner)
    rig.start_both_ways()
    drops_before = rig.braid.drops()
    cut = BfdCut(rig.lab, rig.sw[1], BFD_PORT[partner])
    t_cut = now_ns()
    cut.cut()
    cutting = True
    try:
        t_event = wait_until(
            lambda: event_ns(rig.braid, r"member m1 partner withdrawn \(bfd_down\)", t_cut), 5,
            0.02, "the bond's `partner withdrawn (bfd_down)` event")
        row = wait_release(rig.braid)
        events = events_since(rig.braid, t_cut)
        time.sleep(0.5)
        stolen = cut.stolen()
        t_mend = now_ns()
        cut.mend()
        cutting = False
    finally:
        if cutting:
            cut.mend()
    wait_until(lambda: sessions(rig.braid)["m1"]["state"] == "up", 10, 0.05,
               "m1's session to come back")
    t_sync = wait_until(
        lambda: event_ns(rig.braid, r"member m1 partner back in sync \(was bfd_down\)", t_mend),
        10, 0.05, "the bond's `partner back in sync (was bfd_down)` event")
    back_s = back_both_ways(rig, t_mend, "m1 after BFD came back")
    drops = delta(rig.braid.drops(), drops_before)
    t_wire = withdrawal_on_wire(rig, 1, t_cut)
    assert t_wire is not None, "braid sent no LACPDU with Synchronization clear on m1"
    kept_ms, frames = stopped_after(rig, 1, t_wire, t_mend)
    answers, _ = partner_pdus(rig, 1, t_wire, t_wire)
    how, waited_ms = release_ms(row)
    acc = rig.accounting("I")
    lost = [lost_on(rig, i) for i in range(2)]
    print(f"\n[{partner}] BFD cut on m1: braid's withdrawal (bfd_down) on the wire "
          f"{ms(t_wire, t_cut)} after the cut (its event at {ms(t_event, t_cut)}); the partner on "
          f"m1: {stopped_text(kept_ms, frames)}, its LACPDUs since: [{answers}]; braid: {how} "
          f"after {waited_ms:.1f} ms; "
          f"not_collecting +{drops['not_collecting']}, inbound lost on m0/m1 {lost}; stream I "
          f"{acc}\n[{partner}] events: {timeline(events, t_wire)}\n[{partner}] mended: back in "
          f"sync {ms(t_sync, t_mend)} later, LACP up on both sides {back_s:.2f} s later, then "
          f"traffic both ways on m1")
    assert kept_ms <= STOPPED_WITHIN_MS[partner], (
        f"the partner sent on m1 for {kept_ms:.1f} ms after the withdrawal")
    assert how in RELEASE[partner], row
    assert row["transmit"] == "bfd_down" and row["partner"] == "withdrawn (bfd_down)", row
    assert lost[0] == 0, f"inbound frames lost on m0: {lost}"
    assert lost[1] == drops["not_collecting"], (lost, drops)
    assert stolen > 0


# Partners that answer a withdrawal (RELEASE) and whose LACPDUs a tc filter can steal: their
# members send through the qdisc. Open vSwitch never answers one: the drain test shows it.
SILENCED_PARTNERS = {"testpmd": {"member_options": ",qdisc_bypass=0"}, "braid": {}}


@pytest.mark.parametrize("partner", SILENCED_PARTNERS)
def test_drain_without_acknowledgement_stops_collecting_after_the_patience(make_rig, partner):
    rig = make_rig(partner, partner_options=SILENCED_PARTNERS[partner])
    rig.wait_lacp_up()
    rig.start_both_ways()
    drops_before = rig.braid.drops()
    cut = LacpduCut(rig.lab, rig.sw[1])
    t_cut = now_ns()
    cut.cut()
    cutting = True
    try:
        t_cmd = now_ns()
        said = rig.braid.ctl("set", "member", "m1", "down").stdout
        assert "member m1 admin down: draining" in said, said
        wait_until(lambda: event_ns(rig.braid, r"member m1 partner withdrawn \(draining\)",
                                    t_cmd), 3, 0.02, "the bond's `partner withdrawn` event")
        row = wait_release(rig.braid)
        wait_until(lambda: event_ns(rig.braid, r"member m1 drained", t_cmd), 3, 0.02,
                   "the bond's `drained` event")
        events = events_since(rig.braid, t_cmd)
        # Until the partner's answer has been stolen: braid's goes at once, DPDK's waits for its
        # TX machine (one LACPDU per 500 ms); well inside the 3 s timeout either way.
        stolen = wait_until(cut.stolen, 1.5, 0.02, "the partner's answer to be stolen")
        cut.mend()
        cutting = False
        t_mend = now_ns()
    finally:
        if cutting:
            cut.mend()
    time.sleep(0.3)
    rig.stop_traffic()
    rig.taps.settle()
    drops = delta(rig.braid.drops(), drops_before)
    t_wire = withdrawal_on_wire(rig, 1, t_cmd)
    assert t_wire is not None, "braid sent no LACPDU with Synchronization clear on m1"
    kept_ms, frames = stopped_after(rig, 1, t_wire)
    how, waited_ms = release_ms(row)
    lost = [lost_on(rig, i) for i in range(2)]
    print(f"\n[{partner}] drain of m1 with the partner's LACPDUs on m1 stolen ({stolen} of them) "
          f"for {ms(t_mend, t_cut)}: braid {how} after {waited_ms:.1f} ms; the partner, which "
          f"heard the withdrawal, on m1: {stopped_text(kept_ms, frames)}; not_collecting "
          f"+{drops['not_collecting']}, inbound lost on m0/m1 "
          f"{lost}\n[{partner}] m1 {row}\n[{partner}] events: {timeline(events, t_wire)}")
    assert t_mend - t_cut < SHORT_TIMEOUT_S * NS, "the cut outlived the partner's timeout"
    assert how == "patience" and PATIENCE_MS <= waited_ms <= PATIENCE_MS + 150, row
    assert (row["partner"], row["collecting"]) == ("withdrawn (admin_down)", False), row
    assert event_ns(rig.braid, r"member m1 drained \(patience\)", t_cmd), events
    # What braid did not deliver from m1 it counted as not_collecting; m0 lost nothing.
    assert lost[0] == 0 and lost[1] == drops["not_collecting"], (lost, drops)

    t_up = now_ns()
    rig.braid.ctl("set", "member", "m1", "up")
    rig.start_traffic()
    back_s = back_both_ways(rig, t_up, "m1 after `set member m1 up`")
    print(f"[{partner}] set member m1 up: LACP up on both sides {back_s:.2f} s later, then "
          f"traffic both ways on m1")
    assert service(rig.braid)["partner"] == "in_sync"
    assert set(MEMBERS) == rig.braid.distributing()
