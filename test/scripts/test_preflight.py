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
    assert "preflight: 37 pass, 2 warn, 0 fail, 0 skip (exit 2)" in result.stdout


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
    # lcore ids are still lcore ids: the main lcore is no worker; its CPU is unknown.
    assert checks["main lcore"][0] == "PASS"
    assert checks["main lcore siblings"][0] == "SKIP" and "--lcores" in checks["main lcore siblings"][1]
    assert checks["main lcore isolation"][0] == "SKIP"


# The main lcore runs the protocol loop (LACP, link state, failover, the scheduler) and the
# management thread: not on a worker, not next to one on a physical core, not on an isolated CPU.
# The fixtures' CPUs pair up into cores 0-1, 2-3, ...; tuned isolates 2-7,10-15.

def gateway_with(tmp_path, main_lcore, workers, args=None):
    text = (FIXTURES / "gateway.yaml").read_text()
    text = text.replace("  main_lcore: 0\n", f"  main_lcore: {main_lcore}\n" +
                        (f"  args: {args}\n" if args else ""))
    text = text.replace("lcores: [2, 3, 10, 11]", f"lcores: {workers}")
    config = tmp_path / "placed.yaml"
    config.write_text(text)
    return config


def main_lcore_checks(config, machine="tuned"):
    result = run_script("preflight", "--config", config, "--braid", BRAID, machine=machine,
                        extra_path=FIXTURES / "tuned/bin")
    return {check: (status, message) for status, check, message in report(result)
            if check.startswith("main lcore")}, result


def test_main_lcore_is_placed_well_on_the_tuned_machine():
    checks = {check: value for check, value in messages("tuned", "gateway.yaml").items()
              if check.startswith("main lcore")}
    assert {check: status for check, (status, _) in checks.items()} == {
        "main lcore": "PASS", "main lcore siblings": "PASS", "main lcore isolation": "PASS"}
    assert checks["main lcore siblings"][1] == ("CPU 0 shares its physical core with CPU 1, no worker "
                                                "(thread_siblings_list 0-1)")
    assert "in neither isolcpus (2-7,10-15) nor nohz_full (2-7,10-15)" in checks["main lcore isolation"][1]


def test_main_lcore_on_a_worker_fails_before_braid_does(tmp_path):
    checks, result = main_lcore_checks(gateway_with(tmp_path, 2, [2, 3, 10, 11]))
    status, message = checks["main lcore"]
    assert status == "FAIL"
    assert "lcore 2 (eal.main_lcore) is also a worker (workers.lcores 2-3,10-11)" in message
    assert "braid refuses to start" in message
    # What to do: a whole core that is neither a worker's nor isolated, on the same node.
    assert "e.g. CPU 0 (thread_siblings_list 0-1)" in message
    # The CPU checks would describe a worker's CPU: they wait for the fix.
    assert checks["main lcore siblings"][0] == "SKIP"
    assert checks["main lcore isolation"][0] == "SKIP"
    assert result.returncode == 1


def test_main_lcore_sharing_a_core_with_a_worker_warns(tmp_path):
    checks, result = main_lcore_checks(gateway_with(tmp_path, 0, [1, 2, 3, 10, 11]), "untuned")
    status, message = checks["main lcore siblings"]
    assert status == "WARN"
    assert "CPU 0 shares its physical core with worker CPU 1 (thread_siblings_list 0-1)" in message
    assert "busy-polls" in message
    # The first clean core of node 0 (nothing is isolated on untuned).
    assert "e.g. CPU 4 (thread_siblings_list 4-5)" in message
    assert checks["main lcore"][0] == "PASS"
    assert checks["main lcore isolation"][0] == "PASS"


def test_main_lcore_sibling_suggestion_crosses_nodes_when_it_must(tmp_path):
    checks, _ = main_lcore_checks(gateway_with(tmp_path, 0, [1, 2, 3, 10, 11]))
    # tuned isolates 2-7: node 0 has no clean core left, node 1 has 8-9.
    assert "e.g. CPU 8 on node 1 (thread_siblings_list 8-9)" in checks["main lcore siblings"][1]


def test_main_lcore_on_an_isolated_cpu_warns(tmp_path):
    checks, _ = main_lcore_checks(gateway_with(tmp_path, 4, [2, 3, 10, 11]))
    status, message = checks["main lcore isolation"]
    assert status == "WARN"
    assert "CPU 4 is in isolcpus (2-7,10-15) and nohz_full (2-7,10-15)" in message
    assert "restarts the scheduler tick" in message
    assert "e.g. CPU 0 (thread_siblings_list 0-1)" in message
    # CPU 5 shares the core but polls nothing.
    assert checks["main lcore siblings"][0] == "PASS"


def test_main_lcore_next_to_an_isolated_cpu_warns(tmp_path, machine_copy):
    machine = machine_copy("tuned")
    (machine / "sys/devices/system/cpu/isolated").write_text("1-7,10-15\n")
    checks, _ = main_lcore_checks(FIXTURES / "gateway.yaml", machine)
    status, message = checks["main lcore isolation"]
    assert status == "WARN"
    assert "CPU 0 shares its physical core with isolated CPU 1 (isolcpus 1-7,10-15)" in message
    assert checks["main lcore siblings"][0] == "PASS"


def test_main_lcore_without_topology_in_sysfs(tmp_path, machine_copy):
    machine = machine_copy("tuned")
    for siblings in (machine / "sys/devices/system/cpu").glob("cpu*/topology/thread_siblings_list"):
        siblings.unlink()
    checks, _ = main_lcore_checks(FIXTURES / "gateway.yaml", machine)
    status, message = checks["main lcore siblings"]
    assert status == "SKIP" and "thread_siblings_list" in message
    status, message = checks["main lcore isolation"]
    assert status == "PASS" and "its siblings are unknown" in message


def test_main_lcore_from_eal_args(tmp_path):
    # A --main-lcore of eal.args is what EAL uses: preflight checks that lcore.
    config = gateway_with(tmp_path, 0, [2, 3, 10, 11], args='["-l", "0,2-4,10,11", "--main-lcore", "4"]')
    checks, _ = main_lcore_checks(config)
    assert "lcore 4 (--main-lcore in eal.args)" in checks["main lcore"][1]
    status, message = checks["main lcore isolation"]
    assert status == "WARN" and "CPU 4 is in isolcpus" in message
    assert "move --main-lcore in eal.args to" in message


@pytest.mark.parametrize("machine", ["untuned", None])
def test_mlx5_only_config_does_not_fail_vfio_or_iommu(machine):
    # untuned: no IOMMU groups, vfio-pci not loaded, q0/q1 absent; None: this machine's real
    # sysfs, where none of the NICs is. Before, an absent device counted as needing vfio-pci.
    if machine is None:
        result = run_script("preflight", "--config", FIXTURES / "mlx5-only.yaml", "--braid", BRAID)
    else:
        result = preflight(machine, "mlx5-only.yaml")
    lines = {check: (status, message) for status, check, message in report(result)}
    for check in ("iommu", "vfio"):
        status, message = lines[check]
        assert status in ("PASS", "SKIP"), (check, status, message)
        if status == "SKIP":
            assert "does not apply" in message, message
    if machine == "untuned":
        assert lines["vfio"][0] == "SKIP" and "every PCI port is mlx5 (p0, p1, q0, q1)" in lines["vfio"][1]
