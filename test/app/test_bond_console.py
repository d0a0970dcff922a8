"""The bond, LACP, distribution and scheduler commands as an operator meets them: a running braid
with two bonds over net_null members (a static one with an adaptive scheduler fed by simulated
pause frames, and an LACP one with no partner), driven through braidctl and /metrics."""

import os
import pathlib
import re
import shutil
import tempfile
import time
import urllib.request

import pytest

from braidlib import ctl, ctl_json, free_port, running_braid

METRIC_LINE = re.compile(
    r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? '
    r'[-+]?(\d+(\.\d*)?([eE][-+]?\d+)?|NaN|[-+]?Inf)$')


def config_text(tag, socket_path, metrics_port):
    return f"""\
ports:
  - {{name: host, device: "net_null_{tag}h0"}}
  - {{name: m0, device: "net_null_{tag}t0,no-rx=1"}}
  - {{name: m1, device: "net_null_{tag}t1,no-rx=1"}}
  - {{name: lhost, device: "net_null_{tag}h1"}}
  - {{name: l0, device: "net_null_{tag}l0,no-rx=1"}}
  - {{name: l1, device: "net_null_{tag}l1,no-rx=1"}}
  - {{name: chost, device: "net_null_{tag}h2"}}
  - {{name: c0, device: "net_null_{tag}c0,no-rx=1"}}
  - {{name: c1, device: "net_null_{tag}c1,no-rx=1"}}
bonds:
  - name: uplink
    members: [m0, m1]
    mode: static
    hash: l34
    scheduler:
      policy: adaptive
      weights: [1, 2]
      congestion: {{source: sim, sim_pause_permille: [0, 400]}}
  - name: lag
    members: [l0, l1]
    mode: lacp
  - name: cls
    members: [c0, c1]
    mode: static
    classes:
      default: bulk
      list:
        - {{name: storage, members: [c1], policy: lqf}}
        - {{name: bulk}}
      rules:
        - {{class: storage, protocol: udp, dst_port: 4791}}
workers:
  lcores: [1]
cross_connect:
  - [host, uplink]
  - [lhost, lag]
  - [chost, cls]
control:
  socket: {socket_path}
metrics:
  listen: "127.0.0.1:{metrics_port}"
"""


@pytest.fixture(scope="module")
def running():
    directory = pathlib.Path(tempfile.mkdtemp(prefix="braid-bond-console-"))
    tag = f"bc{os.getpid()}"
    prefix = f"braid-bond-console-{os.getpid()}"
    socket_path = directory / "braid.sock"
    metrics_port = free_port()
    config = directory / "braid.yaml"
    config.write_text(config_text(tag, socket_path, metrics_port))
    try:
        with running_braid(config, directory, prefix, socket_path) as process:
            yield {"socket": str(socket_path), "metrics_port": metrics_port, "process": process,
                   "log": directory / "braid.log"}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def members_of(running, bond):
    return {m["member"]: m for m in ctl_json(running, "show", "bond", bond)[bond]["members"]}


def test_show_bond(running):
    out = ctl(running, "show", "bond").stdout
    assert "uplink" in out and "lag" in out, out
    assert re.search(r"^\s*m0\s+up\s+", out, re.M), out
    members = members_of(running, "uplink")
    assert set(members) == {"m0", "m1"}
    assert all(m["distributing"] for m in members.values()), members
    # net_null has no rte_flow: slow_steering auto falls back to the workers' ring, and says why.
    assert all(m["slow_path"] == "ring" for m in members.values()), members
    uplink = ctl_json(running, "show", "bond", "uplink")["uplink"]
    assert uplink["slow_steering"] == "auto", uplink
    assert uplink["slow_rx_steered"] == 0 and uplink["slow_queue_misdirected"] == 0, uplink
    assert any("Slow Protocols over the workers' ring (rte_flow_validate" in e["event"]
               for e in uplink["recent_events"]), uplink["recent_events"]


def test_show_lacp(running):
    result = ctl_json(running, "show", "lacp")
    assert {p["member"] for p in result["lag"]["ports"]} == {"l0", "l1"}, result
    assert "LACP is not running" in ctl(running, "show", "lacp", "uplink").stdout
    detail = ctl_json(running, "show", "lacp", "detail", "lag")["lag"]
    assert {p["member"] for p in detail["machines"]} == {"l0", "l1"}, detail
    assert detail["transitions"], detail


def test_lacp_history_names_machines_and_leaves_out_periodic_ticks(running):
    """The history is member, machine, from, to (not a log string with LACP's port numbers), and
    the Periodic machine's pass through PERIODIC_TX every second is counted, not listed: with no
    partner, lag's members tick every second, and their first transitions must stay shown."""
    detail = ctl_json(running, "show", "lacp", "detail", "lag")["lag"]
    transitions = detail["transitions"]
    machines = {"receive", "periodic", "selection", "mux", "actor_churn", "partner_churn",
                "fallback", "system"}
    for row in transitions:
        assert set(row) == {"age", "member", "machine", "from", "to"}, row
        assert row["member"] in {"l0", "l1", "-"}, row
        assert row["machine"] in machines, row
        assert "PERIODIC_TX" not in (row["from"], row["to"]), row
    # The start-up transitions (link up: receive leaves PORT_DISABLED) are still there.
    assert any(row["machine"] == "receive" and row["from"] == "PORT_DISABLED"
               for row in transitions), transitions
    deadline = time.monotonic() + 10
    while ctl_json(running, "show", "lacp", "detail", "lag")["lag"]["periodic_ticks"] < 2:
        assert time.monotonic() < deadline, "no periodic ticks counted"
        time.sleep(0.2)
    text = ctl(running, "show", "lacp", "detail", "lag").stdout
    assert re.search(r"^\s*age\s+member\s+machine\s+from\s+to$", text, re.M), text
    assert "periodic_ticks:" in text, text


def test_mistyped_values_get_a_suggestion(running):
    for words, message in (
            (["show", "bond", "uplnk"], 'no bond "uplnk"; did you mean "uplink"?'),
            (["show", "lacp", "detail", "lagg"], 'no bond "lagg"; did you mean "lag"?'),
            (["set", "member", "m11", "down"], 'no member "m11"; did you mean "m1"?'),
            (["show", "port", "stats", "hots"], 'no port "hots"; did you mean "host"?'),
            (["set", "bond", "lag", "policy", "hsah"], 'did you mean "hash"?'),
            (["set", "bond", "lag", "weight", "l3", "2"], 'did you mean "l0"?')):
        result = ctl(running, *words, check=False)
        assert result.returncode == 1, result.stdout
        assert message in result.stderr, (words, result.stderr)


def test_missing_counters_are_null_in_json(running):
    # The sim source has pause frames, ECN marks and CNPs, not discards.
    members = ctl_json(running, "show", "scheduler", "uplink")["uplink"]["members"]
    assert members and all(m["discards"] is None for m in members), members
    assert all(isinstance(m["pause_frames"], int) and isinstance(m["cnp"], int)
               for m in members), members
    text = ctl(running, "show", "scheduler", "uplink").stdout
    assert re.search(r"^\s*m0\s.*\s-\s", text, re.M), text


def test_spray_is_refused_where_roce_can_arrive(running):
    """Issue 34 item 9: the demo's bonds say nothing of out-of-order placement; spray at run time
    is refused as the config would refuse it, and the policy stays."""
    before = ctl_json(running, "show", "scheduler", "lag")["lag"]["policy"]
    result = ctl(running, "set", "bond", "lag", "policy", "spray", check=False)
    assert result.returncode == 1, result.stdout
    assert "uses policy spray and" in result.stderr, result.stderr
    assert "scheduler.out_of_order_placement: true" in result.stderr, result.stderr
    assert ctl_json(running, "show", "scheduler", "lag")["lag"]["policy"] == before


def test_weight_help_says_which_policies_use_weights(running):
    text = ctl(running, "help", "set", "bond").stdout
    assert "wrr, adaptive and spray use weights; hash, lqf and latency give every member an equal share" in text
    assert "<weight>: a member weight, 1..1000 (read by the wrr and adaptive policies only)" in text
    ctl(running, "set", "bond", "lag", "policy", "lqf")
    try:
        out = ctl(running, "set", "bond", "lag", "weight", "l1", "2").stdout
        assert "policy lqf ignores weights" in out, out
    finally:
        ctl(running, "set", "bond", "lag", "policy", "hash")
        ctl(running, "set", "bond", "lag", "weight", "l1", "1")


def test_log_lines_name_members_by_config_name(running):
    deadline = time.monotonic() + 10
    while not re.search(r"bond uplink: member m1 weight \d+ -> \d+",
                        running["log"].read_text()):
        assert time.monotonic() < deadline, running["log"].read_text()
        time.sleep(0.2)
    log = running["log"].read_text()
    assert not re.search(r"member \d+ ", log), log


def test_show_distribution(running):
    result = ctl_json(running, "show", "distribution", "uplink")["uplink"]
    assert sum(m["buckets"] for m in result["members"]) == result["buckets"], result
    assert re.fullmatch(r"[01]{64}", result["first_64_buckets"]), result


def test_member_down_and_up(running):
    assert "member m1 admin down" in ctl(running, "set", "member", "m1", "down").stdout
    try:
        members = members_of(running, "uplink")
        assert members["m1"]["admin"] == "down" and not members["m1"]["distributing"], members
        assert members["m0"]["distributing"], members
        dist = ctl_json(running, "show", "distribution", "uplink")["uplink"]
        assert {m["member"]: m["buckets"] for m in dist["members"]}["m1"] == 0, dist
    finally:
        ctl(running, "set", "member", "m1", "up")
    deadline = time.monotonic() + 10
    while not members_of(running, "uplink")["m1"]["distributing"]:
        assert time.monotonic() < deadline, "m1 never distributed again"
        time.sleep(0.1)


def test_show_scheduler(running):
    out = ctl(running, "show", "scheduler", "uplink").stdout
    for word in ("policy", "adaptive", "flowlet_gap_us", "effective_weight", "aimd_factor",
                 "cause"):
        assert word in out, out
    snap = ctl_json(running, "show", "scheduler")
    assert set(snap) == {"uplink", "lag", "cls"}, snap
    members = {m["member"]: m for m in snap["uplink"]["members"]}
    assert members["m1"]["configured_weight"] == 2, members
    # m1 is 40% paused (sim): the adaptive policy cuts its AIMD factor.
    deadline = time.monotonic() + 10
    while members["m1"]["aimd_factor"] >= 1.0 or members["m1"]["pause"] <= 0:
        assert time.monotonic() < deadline, members
        time.sleep(0.2)
        members = {m["member"]: m for m in ctl_json(running, "show", "scheduler",
                                                    "uplink")["uplink"]["members"]}
    uplink = ctl_json(running, "show", "scheduler", "uplink")["uplink"]
    history = uplink["weight_history"]
    assert any(h["member"] == "m1" for h in history), history
    assert len(history) <= 10
    # What reading the sim source costs the control thread: measured, and far below a period.
    assert uplink["congestion_source"] == "sim", uplink
    assert 0 <= uplink["counters_read_us"] <= uplink["counters_read_max_us"] < 5000, uplink
    # lag has no congestion source: nothing to time.
    assert "counters_read_us" not in ctl_json(running, "show", "scheduler", "lag")["lag"]


def test_each_traffic_class_has_its_table_members_and_policy(running):
    classes = ctl_json(running, "show", "classes", "cls")["cls"]
    rows = {c["class"]: c for c in classes["classes"]}
    assert rows["storage"]["members"] == "c1" and rows["storage"]["policy"] == "lqf", rows
    assert rows["bulk"]["members"] == "all" and rows["bulk"]["policy"] == "bond", rows
    # No class names a PFC priority: each rides on the bond's scheduler.congestion.priority.
    assert rows["storage"]["priority"] == 3 and rows["bulk"]["priority"] == 3, rows
    shares = {(s["class"], s["member"]): s["buckets"] for s in classes["shares"]}
    assert shares[("storage", "c1")] == 256 and ("storage", "c0") not in shares, shares
    assert shares[("bulk", "c0")] == 128 and shares[("bulk", "c1")] == 128, shares
    # A class of its own policy from the console; the bond's policy leaves it alone.
    assert "bond cls: class bulk policy wrr" in ctl(running, "set", "bond", "cls", "class", "bulk",
                                                     "policy", "wrr").stdout
    out = ctl(running, "set", "bond", "cls", "policy", "adaptive").stdout
    assert "classes with a policy of their own keep it: storage, bulk" in out, out
    sched = {c["class"]: c for c in ctl_json(running, "show", "scheduler", "cls")["cls"]["classes"]}
    assert sched["storage"]["policy"] == "lqf" and sched["storage"]["own_policy"], sched
    assert sched["bulk"]["policy"] == "wrr" and sched["bulk"]["own_policy"], sched
    assert sched["storage"]["priority"] == 3, sched
    for words, message in ((["set", "bond", "cls", "class", "nope", "policy", "hash"],
                            "bond cls has no class nope (its classes: storage, bulk)"),
                           (["set", "bond", "lag", "class", "bulk", "policy", "hash"],
                            "bond lag has no traffic classes")):
        result = ctl(running, *words, check=False)
        assert result.returncode == 1 and message in result.stderr, (words, result.stderr)
    text = urllib.request.urlopen(
        f"http://127.0.0.1:{running['metrics_port']}/metrics", timeout=10).read().decode()
    assert re.search(r'^braid_class_member_buckets\{bond="cls",class="storage",member="c1"\} 256$',
                     text, re.M), text


def test_set_policy_weight_and_gap(running):
    assert "policy wrr" in ctl(running, "set", "bond", "lag", "policy", "wrr").stdout
    assert ctl_json(running, "show", "scheduler", "lag")["lag"]["policy"] == "wrr"
    assert "weight 3" in ctl(running, "set", "bond", "lag", "weight", "l1", "3").stdout
    members = {m["member"]: m for m in ctl_json(running, "show", "scheduler",
                                                "lag")["lag"]["members"]}
    assert members["l1"]["configured_weight"] == 3, members
    assert "flowlet gap 250 us" in ctl(running, "set", "bond", "lag", "flowlet", "gap",
                                       "250").stdout
    assert ctl_json(running, "show", "scheduler", "lag")["lag"]["flowlet_gap_us"] == 250
    assert "policy hash" in ctl(running, "set", "bond", "lag", "policy", "hash").stdout


@pytest.mark.parametrize("words,message", [
    (["set", "bond", "nosuch", "policy", "wrr"], "nosuch"),
    (["set", "bond", "lag", "policy", "fastest"], "hash"),
    (["set", "bond", "lag", "weight", "m0", "2"], "not in bond lag"),
    (["set", "bond", "lag", "weight", "l0", "0"], "weight"),
    (["set", "bond", "lag", "weight", "l0", "1001"], "weight"),
    (["set", "bond", "lag", "flowlet", "gap", "0"], "microseconds"),
    (["set", "member", "nosuch", "down"], "nosuch"),
    (["show", "scheduler", "nosuch"], "nosuch"),
])
def test_bad_arguments_are_clear_errors(running, words, message):
    result = ctl(running, *words, check=False)
    assert result.returncode != 0, result.stdout
    assert message in result.stderr, result.stderr


def test_metrics(running):
    deadline = time.monotonic() + 10
    while True:
        with urllib.request.urlopen(f"http://127.0.0.1:{running['metrics_port']}/metrics",
                                    timeout=10) as response:
            text = response.read().decode()
        if "braid_member_pfc_pause_total" in text or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    for line in text.splitlines():
        if line.startswith("#"):
            assert re.match(r"^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* ", line), line
        elif line:
            assert METRIC_LINE.match(line), line
    assert re.search(r'^braid_member_weight\{bond="uplink",member="m1"\} \d+$', text, re.M), text
    shares = [float(v) for v in re.findall(
        r'^braid_member_weight_share\{bond="uplink",member="m\d"\} (\S+)$', text, re.M)]
    assert len(shares) == 2 and abs(sum(shares) - 1.0) < 1e-6, text
    assert re.search(r'^braid_lacp_partner_state\{bond="lag",member="l0"\} \d+$', text, re.M)
    assert re.search(r'^braid_member_effective_weight\{bond="uplink",member="m0"\} \d+$', text,
                     re.M)
    assert re.search(r'^braid_member_pfc_pause_total\{bond="uplink",member="m1",'
                     r'direction="rx"\} [1-9]\d*$', text, re.M), text
    assert re.search(r'^braid_bond_slow_rx_total\{bond="lag",path="diverted"\} \d+$', text, re.M)
    assert re.search(r'^braid_bond_drops_total\{bond="uplink",reason="slow_queue_misdirected"\} 0$',
                     text, re.M), text
    assert re.search(r'^braid_member_slow_steered\{bond="lag",member="l0"\} 0$', text, re.M)
    assert re.search(r'^braid_scheduler_counters_read_seconds\{bond="uplink"\} \S+$', text, re.M), text
    assert 'braid_scheduler_counters_read_seconds{bond="lag"}' not in text
    assert re.search(r'^braid_lacp_rejected_total\{bond="lag",member="l0",reason="loopback"\} 0$',
                     text, re.M), text
    assert re.search(r'^braid_lacp_fallback_engaged\{bond="lag",member="l0"\} 0$', text, re.M)
    assert re.search(r'^braid_protocol_deadline_lateness_seconds\{deadline="lacp_periodic",'
                     r'window="minute"\} \S+$', text, re.M), text


def test_the_protocol_loop_sleeps_between_deadlines(running):
    """An idle braid's protocol loop wakes for its deadlines (two bonds polling their links every
    millisecond, LACP timers, scheduler periods), not in a busy loop: a deadline that was never
    set (a LACP bond without fallback had one) made it spin 150,000 times a second."""
    def iterations():
        return ctl_json(running, "show", "control")["protocol_loop_iterations"]
    before = iterations()
    time.sleep(2.0)
    per_second = (iterations() - before) / 2.0
    assert per_second < 5000, f"{per_second:.0f} iterations a second"


def test_show_lacp_detail_counts_every_reject_reason(running):
    lag = ctl_json(running, "show", "lacp", "detail", "lag")["lag"]
    columns = set(lag["counters"][0])
    for reason in ("too_short", "bad_destination", "bad_ethertype", "unknown_subtype",
                   "bad_version", "bad_actor_tlv", "bad_partner_tlv", "bad_collector_tlv",
                   "bad_tlv_length", "bad_terminator", "bad_actor_port", "bad_marker_tlv",
                   "bad_marker_terminator", "loopback"):
        assert f"rejected_{reason}" in columns, columns
    assert {"marker_response_suppressed", "marker_response_tx_failed", "lacpdu_tx_failed",
            "goodbye_tx", "lacpdu_rx_ignored"} <= columns


def test_show_health(running):
    """Every member's health with its reason and signals; net_null has no error counters but
    ierrors/imissed, so crc and the others are unavailable; the LACP bond without a partner is
    healthy (health is the link's) but carries nothing: its service says lacp_not_distributing,
    and its partner is not withdrawn; metrics and show bond agree."""
    uplink = ctl_json(running, "show", "health", "uplink")["uplink"]
    members = {m["member"]: m for m in uplink["members"]}
    assert set(members) == {"m0", "m1"}, uplink
    assert all(m["state"] == "healthy" and m["weight_permille"] == 1000
               for m in members.values()), members
    signals = {(s["member"], s["signal"]): s for s in uplink["signals"]}
    assert signals[("m0", "rx_errors")]["verdict"] == "clean", signals
    assert signals[("m0", "crc")]["verdict"] == "unavailable", signals
    assert signals[("m0", "crc")]["rate_ppm"] == "unavailable", signals
    lag = ctl_json(running, "show", "health", "lag")["lag"]
    assert {m["state"] for m in lag["members"]} == {"healthy"}, lag
    assert {(m["transmit_permille"], m["transmit"], m["partner"]) for m in lag["service"]} == {
        (0, "lacp_not_distributing", "in_sync")}, lag
    bond = ctl_json(running, "show", "bond", "lag")["lag"]
    assert {m["health"] for m in bond["members"]} == {"healthy"}, bond
    assert {m["transmit"] for m in bond["service"]} == {"lacp_not_distributing"}, bond
    out = ctl(running, "show", "health").stdout
    assert re.search(r"^\s*m0\s+healthy\s+", out, re.M), out
    text = urllib.request.urlopen(
        f"http://127.0.0.1:{running['metrics_port']}/metrics", timeout=10).read().decode()
    assert re.search(r'^braid_member_health_state\{bond="uplink",member="m0",state="healthy"\} 1$',
                     text, re.M), text
    assert re.search(r'^braid_member_health_state\{bond="lag",member="l0",state="healthy"\} 1$',
                     text, re.M), text
    assert re.search(r'^braid_member_transmit_weight_permille\{bond="lag",member="l0"\} 0$',
                     text, re.M), text
    assert re.search(
        r'^braid_member_partner_withdrawn\{bond="lag",member="l0",reason="none"\} 0$', text,
        re.M), text
    assert re.search(r'^braid_member_health_weight_permille\{bond="uplink",member="m1"\} 1000$',
                     text, re.M), text
    assert re.search(r'^braid_member_flaps_total\{bond="uplink",member="m0"\} 0$', text, re.M)
    assert re.search(r'^braid_member_error_rate_ppm\{bond="uplink",member="m0",signal="rx_errors"\}'
                     r' 0(\.0*)?$', text, re.M), text
    assert not re.search(r'braid_member_error_rate_ppm\{[^}]*signal="crc"', text), text
