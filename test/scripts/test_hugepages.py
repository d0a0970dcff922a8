"""scripts/hugepages: sizes from a config with braid's own mempool formula, per-node reservation
and persistence, all against fixture trees (or copies of them): the real machine is never
touched."""

import os
import re
import shutil
import subprocess
import textwrap

import pytest

from conftest import BRAID, FIXTURES, SOURCE_ROOT, run_script, tree_snapshot

NODE1_2M = "sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages"


def test_dry_run_prints_every_change_and_changes_nothing(tmp_path):
    before = tree_snapshot(FIXTURES / "untuned")
    result = run_script("hugepages", "--config", FIXTURES / "gateway.yaml", "--dry-run",
                        "--persist", "--destdir", tmp_path, machine="untuned")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "node 0: 512 x 2M already reserved (needs 398)" in out
    assert f"would write: 398 > {FIXTURES / 'untuned' / NODE1_2M}" in out
    assert re.search(r"would run: \S*mkdir -p /dev/hugepages", out)
    assert re.search(r"would run: \S*(dpdk-hugepages.py --mount --directory /dev/hugepages --pagesize 2M"
                     r"|mount -t hugetlbfs)", out)
    assert f"would create: {tmp_path}/etc/systemd/system/braid-hugepages.service" in out
    assert "ExecStart=/bin/sh -c 'echo 398 > /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages'" in out
    assert f"would run: systemctl --root={tmp_path} enable braid-hugepages.service" in out
    assert tree_snapshot(FIXTURES / "untuned") == before
    assert list(tmp_path.iterdir()) == []


def test_one_gig_pages_print_kernel_command_line(tmp_path):
    result = run_script("hugepages", "--pages", "4", "--size", "1G", "--node", "1", "--dry-run",
                        "--persist", "--destdir", tmp_path, machine="untuned")
    assert result.returncode == 0, result.stderr
    assert "hugepages-1048576kB/nr_hugepages" in result.stdout
    assert "default_hugepagesz=1G hugepagesz=1G hugepages=1:4" in result.stdout
    assert "dev-hugepages1G.mount" in result.stdout
    assert "Options=pagesize=1G" in result.stdout


def test_reserves_on_a_copy_and_persists(machine_copy, tmp_path):
    machine = machine_copy("untuned")
    destdir = tmp_path / "dest"
    result = run_script("hugepages", "--config", FIXTURES / "gateway.yaml", "--persist",
                        "--destdir", destdir, machine=machine)
    assert result.returncode == 0, result.stderr
    assert (machine / NODE1_2M).read_text().strip() == "398"
    # node 0 already had more than needed: left alone, and kept at boot.
    assert (machine / NODE1_2M.replace("node1", "node0")).read_text().strip() == "512"
    assert "not mounting hugetlbfs" in result.stdout  # a fake tree is never mounted on
    unit = (destdir / "etc/systemd/system/braid-hugepages.service").read_text()
    assert "echo 512 > /sys/devices/system/node/node0/" in unit
    assert "echo 398 > /sys/devices/system/node/node1/" in unit
    if shutil.which("systemd-analyze"):
        verify = subprocess.run(["systemd-analyze", "verify",
                                 str(destdir / "etc/systemd/system/braid-hugepages.service")],
                                capture_output=True, text=True)
        assert verify.returncode == 0, verify.stderr


def test_show_reports_per_node_and_mounts():
    result = run_script("hugepages", "--show", machine="tuned")
    assert result.returncode == 0
    assert re.search(r"^1\s+2M\s+1024\s+1024\s+2048$", result.stdout, re.M)
    assert "/dev/hugepages (pagesize 2M)" in result.stdout


def test_refusals():
    assert run_script("hugepages", "--pages", "8", "--size", "3M", machine="tuned").returncode == 2
    assert run_script("hugepages", "--pages", "8", "--node", "7", "--dry-run",
                      machine="tuned").returncode == 1
    # --persist with a fake tree but no --destdir would write the real /etc.
    assert run_script("hugepages", "--pages", "8", "--persist", machine="tuned").returncode == 2
    assert run_script("hugepages").returncode == 2


def mbufs_from_script(config):
    result = run_script("hugepages", "--config", config, "--dry-run", machine="tuned")
    assert result.returncode == 0, result.stderr
    match = re.search(r"node 0: .* = (\d+) mbufs of (\d+) B data room", result.stdout)
    return int(match.group(1)), int(match.group(2))


@pytest.mark.parametrize("config_text", [
    # Like the first demo: a port whose PMD holds mbufs of its own, into net_null.
    textwrap.dedent("""\
        ports:
          - { name: wire, device: net_null_sizing3, extra_mbufs: 4096 }
          - { name: sink, device: net_null_sizing2 }
        cross_connect: [[wire, sink]]
    """),
    textwrap.dedent("""\
        ports:
          - { name: a, device: net_null_sizing0, rx_queues: 2, rx_descriptors: 2048, tx_descriptors: 512, mtu: 9000 }
          - { name: b, device: net_null_sizing1, rx_descriptors: 256, extra_mbufs: 100 }
        workers: { lcores: [1], burst: 64 }
        cross_connect: [[a, b]]
    """),
    # Bond members: a control TX queue each, and a slow-protocol RX queue unless slow_steering
    # is off (net_null has no rte_flow: braid falls back, but the queue was provisioned).
    textwrap.dedent("""\
        ports:
          - { name: h0, device: net_null_sizing4 }
          - { name: m0, device: "net_null_sizing5,no-rx=1", rx_descriptors: 512 }
          - { name: m1, device: "net_null_sizing6,no-rx=1" }
          - { name: h1, device: net_null_sizing7 }
          - { name: m2, device: "net_null_sizing8,no-rx=1", tx_descriptors: 256 }
        bonds:
          - { name: up, members: [m0, m1], mode: static }
          - { name: ring, members: [m2], mode: static, slow_steering: off }
        cross_connect: [[h0, up], [h1, ring]]
    """),
])
def test_sizing_matches_braids_own_mempool(tmp_path, config_text):
    """The scripts' arithmetic is braid's: start braid on virtual devices and compare the
    mempool it creates with what the script derives from the same config."""
    if config_text is None:
        config = SOURCE_ROOT / "config/demo.yaml"
    else:
        config = tmp_path / "sizing.yaml"
        config.write_text(config_text)
    mbufs, data_room = mbufs_from_script(config)
    result = subprocess.run([BRAID, "--config", str(config), "--duration", "1", "--stats-interval", "0",
                             "--", f"--file-prefix=braid-sizing-{os.getpid()}"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    match = re.search(r"mempool \S+: (\d+) mbufs of (\d+) bytes", result.stdout + result.stderr)
    assert match, result.stdout + result.stderr
    assert (int(match.group(1)), int(match.group(2))) == (mbufs, data_room)
