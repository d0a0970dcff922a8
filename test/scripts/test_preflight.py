"""scripts/preflight against two fake machines (fixtures/tuned, fixtures/untuned) and two configs
(fixtures/gateway.yaml placed well, fixtures/misplaced.yaml not), and on this real machine,
which has no NICs and no hugepages and must say what it cannot see."""

import pytest

from conftest import BRAID, FIXTURES, SOURCE_ROOT, expected, preflight, report, run_script


@pytest.mark.parametrize("machine,config,exit_status", [
    ("tuned", "gateway", 0),
    ("tuned", "misplaced", 1),
    ("untuned", "gateway", 1),
    ("untuned", "misplaced", 1),
])
def test_report_matches_expected(machine, config, exit_status):
    result = preflight(machine, f"{config}.yaml")
    assert [(status, check) for status, check, _ in report(result)] == expected(f"{machine}-{config}")
    assert result.returncode == exit_status, result.stdout


def test_warnings_alone_exit_2():
    # The tuned machine, but the switch-facing QoS left at its defaults: PFC off, trust pcp.
    result = preflight("tuned", "gateway.yaml", qos_tools="untuned")
    lines = report(result)
    assert {status for status, _, _ in lines} == {"PASS", "WARN"}
    assert [check for status, check, _ in lines if status == "WARN"] == ["pfc p0", "pfc p1"]
    assert result.returncode == 2
    assert "preflight: 34 pass, 2 warn, 0 fail, 0 skip (exit 2)" in result.stdout


def messages(machine, config):
    return {check: (status, message) for status, check, message in report(preflight(machine, config))}


def test_pcie_arithmetic_is_spelled_out():
    untuned = messages("untuned", "gateway.yaml")
    status, message = untuned["pcie e0+e1"]
    assert status == "FAIL"
    assert "Gen3 x8 = 8 GT/s x 8 lanes x 128/130 = 63.0 Gbit/s per direction < 200 Gbit/s" in message
    assert "trained below the card's Gen4 x16" in message
    assert untuned["pcie p0+p1"] == ("PASS", "Gen4 x16 = 16 GT/s x 16 lanes x 128/130 = 252.1 Gbit/s "
                                             "per direction >= 200 Gbit/s of line rate")


def test_hugepages_sized_from_the_config():
    untuned = messages("untuned", "gateway.yaml")
    # 4 ports x (2 RX queues x 4096 + 4 TX queues x 4096), 4 workers + main, burst 32, MTU 9000:
    # per node 16384 + 32768 + 5*32*5 + 5*384 = 51872, + 1/8 + 1024 = 59380 mbufs.
    assert untuned["hugepages node0"][0] == "PASS"
    status, message = untuned["hugepages node1"]
    assert status == "FAIL"
    assert "needs 796 MiB (59380 mbufs of 9154 B data room" in message
    assert "scripts/hugepages --config" in message


def test_placement_mtu_and_drivers_say_what_to_do():
    bad = messages("untuned", "misplaced.yaml")
    assert "no worker lcore is" in bad["numa e0"][1] and "(8-15)" in bad["numa e0"][1]
    assert "e1 1500" in bad["mtu"][1]
    assert "scripts/bind 0000:af:00.0" in bad["driver e0"][1]
    assert "modprobe mlx5_ib" in bad["rdma p0"][1]
    assert "--pfc 0,0,0,1,0,0,0,0 --trust dscp" in bad["pfc p0"][1]
    assert "isolcpus=2-3" in bad["isolcpus"][1]
    assert "IRQs 100-103" in bad["irq p0"][1]


def test_pfc_priority_is_configurable():
    result = preflight("tuned", "gateway.yaml", "--pfc-priority", "4")
    lines = {check: status for status, check, _ in report(result)}
    assert lines["pfc p0"] == "WARN"


def test_dry_run_is_the_same_read_only_run():
    plain = preflight("untuned", "gateway.yaml")
    dry = preflight("untuned", "gateway.yaml", "--dry-run")
    assert dry.stdout == plain.stdout


def test_runs_on_this_machine_without_a_config():
    result = run_script("preflight")
    lines = report(result)
    assert result.returncode in (0, 1, 2)
    checks = {check: status for status, check, _ in lines}
    assert checks["config"] == "SKIP" and checks["ports"] == "SKIP"
    assert "kernel" in checks and "dpdk" in checks


def test_runs_on_this_machine_with_the_demo_config():
    result = run_script("preflight", "--config", SOURCE_ROOT / "config/demo.yaml", "--braid", BRAID)
    lines = report(result)
    checks = {check: (status, message) for status, check, message in lines}
    assert checks["config"][0] == "PASS"
    assert checks["ports"][0] == "SKIP" and "virtual devices" in checks["ports"][1]
    # The demo runs without hugepages: never a FAIL for them, at most a WARN.
    assert checks["hugepages node0"][0] in ("PASS", "WARN")


def test_absent_nics_are_skipped_with_the_reason():
    # The fixture gateway's PCI addresses on this machine's real sysfs: none of them exists.
    result = run_script("preflight", "--config", FIXTURES / "gateway.yaml", "--braid", BRAID)
    lines = report(result)
    device_lines = [(status, message) for status, check, message in lines if check.startswith("device ")]
    assert len(device_lines) == 4
    for status, message in device_lines:
        assert status == "SKIP" and "is not on this machine" in message


def test_invalid_config_fails_the_config_check(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("ports:\n  - name: p0\n    device: net_null0\n    rx_queues: 0\n"
                      "cross_connect: []\n")
    result = run_script("preflight", "--config", broken, "--braid", BRAID, machine="tuned")
    checks = {check: (status, message) for status, check, message in report(result)}
    assert checks["config"][0] == "FAIL" and "rx_queues" in checks["config"][1]
    assert result.returncode == 1


def test_unknown_sections_are_tolerated(tmp_path):
    # Sections braid grows later (bonds, scheduler) must not break the scripts' config reader.
    future = tmp_path / "future.yaml"
    future.write_text((FIXTURES / "gateway.yaml").read_text() +
                      "bonds:\n  - name: uplink\n    members: [p0, p1]\n    mode: lacp\n")
    result = run_script("preflight", "--config", future, machine="tuned",
                        extra_path=FIXTURES / "tuned/bin")
    checks = {check: status for status, check, _ in report(result)}
    assert checks["numa p0"] == "PASS" and checks["hugepages node1"] == "PASS"


def test_help_and_usage_errors():
    assert "PASS|WARN|FAIL|SKIP" in run_script("preflight", "--help").stdout
    result = run_script("preflight", "--frobnicate")
    assert result.returncode == 2 and "unknown option" in result.stderr


def test_lcore_remapping_is_flagged(tmp_path):
    remapped = tmp_path / "remapped.yaml"
    remapped.write_text((FIXTURES / "gateway.yaml").read_text().replace(
        "eal:\n", 'eal:\n  args: ["--lcores", "0,2@4,3,10,11"]\n'))
    checks = {check: (status, message) for status, check, message in
              report(run_script("preflight", "--config", remapped, machine="tuned"))}
    assert checks["lcores"][0] == "WARN" and "--lcores" in checks["lcores"][1]
