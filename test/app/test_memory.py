"""braid's memory plan against what it allocates and what scripts/hugepages reserves: `braid
--check --memory` per NUMA socket for the storage-gateway configs (and the two-node fixture
machine, through --sysfs) names the same mbufs and data room as scripts/hugepages, whose
reservation covers the plan plus what DPDK allocates besides braid's pools (measured on a running
demo); `show memory` on the running demo reports pools of exactly the planned size, objects no
larger than the plan assumes, and the plan's total."""

import os
import pathlib
import re
import subprocess
import tempfile
import time

import pytest

from braidlib import BRAID, BRAIDCTL, stop

SOURCE_ROOT = pathlib.Path(os.environ.get("BRAID_SOURCE_ROOT", pathlib.Path(__file__).parents[2]))
FIXTURES = SOURCE_ROOT / "test/scripts/fixtures"
GATEWAYS = ["storage-gateway-2x100g-mlx5.yaml", "storage-gateway-4x25g-e810.yaml",
            "dual-socket-2x2x100g.yaml"]
SOCKET_LINE = re.compile(r"^  socket (\d+): .* \((\d+) bytes\)$")
MEMPOOL_LINE = re.compile(r"^    mempool: (\d+) mbufs x (\d+) B \((\d+) B data room\)")
RESERVE_LINE = re.compile(r"^hugepages: node (\d+): (\d+) MiB = (\d+) mbufs of (\d+) B data room")


def memory_plan(*args):
    """{socket: {"bytes", "mbufs", "object_bytes", "data_room"}} from braid --check --memory."""
    result = subprocess.run([BRAID, "--check", "--portable", "--memory", *map(str, args)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    plan, socket = {}, None
    for line in result.stdout.splitlines():
        if match := SOCKET_LINE.match(line):
            socket = int(match[1])
            plan[socket] = {"bytes": int(match[2]), "mbufs": 0}
        elif match := MEMPOOL_LINE.match(line):
            plan[socket].update(mbufs=int(match[1]), object_bytes=int(match[2]),
                                data_room=int(match[3]))
    assert plan, result.stdout
    return plan


def hugepage_reservation(config, *machine):
    """{node: (MiB, mbufs, data_room)} from scripts/hugepages --config --dry-run."""
    result = subprocess.run([str(SOURCE_ROOT / "scripts/hugepages"), "--config", str(config),
                             "--dry-run", *map(str, machine)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    return {int(m[1]): (int(m[2]), int(m[3]), int(m[4]))
            for m in map(RESERVE_LINE.match, result.stdout.splitlines()) if m}


def show(socket_path, command):
    result = subprocess.run([BRAIDCTL, "--socket", str(socket_path), command],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def table(text, first_column):
    """The rows of the console table whose header starts with `first_column`, as dicts."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == [first_column])
    header = lines[start].split()
    rows = []
    for line in lines[start + 1:]:
        cells = line.split()
        if len(cells) != len(header):
            break
        rows.append(dict(zip(header, cells)))
    return rows


@pytest.fixture(scope="module")
def demo():
    """The demo running with a control socket: its `show memory`, and its plan."""
    directory = pathlib.Path(tempfile.mkdtemp(prefix="braid-memory-"))
    socket_path = directory / "braid.sock"
    log_path = directory / "braid.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen([BRAID, "--stats-interval", "0", "--control-socket",
                                    str(socket_path), "--", f"--file-prefix=braid-mem-{os.getpid()}"],
                                   stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while not socket_path.exists():
                assert process.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.1)
            yield {"memory": show(socket_path, "show memory"), "plan": memory_plan()}
        finally:
            stop(process)
            log_path.unlink(missing_ok=True)
            socket_path.unlink(missing_ok=True)
            directory.rmdir()


def dpdk_own_bytes(demo):
    """What DPDK allocated besides braid's pools: the heap in use minus the pools' memory."""
    sockets = table(demo["memory"], "socket")
    pools = table(demo["memory"], "mempool")
    in_pools = sum(int(pool["bytes"]) for pool in pools)
    return sum(int(s["heap_allocated_bytes"]) for s in sockets) - in_pools


def test_show_memory_reports_the_pools_the_plan_sized(demo):
    plan = demo["plan"]
    sockets = {int(row["socket"]): row for row in table(demo["memory"], "socket")}
    assert sockets.keys() == plan.keys()
    for socket, planned in plan.items():
        assert int(sockets[socket]["planned_bytes"]) == planned["bytes"]
        # The heap holds at least the pools, and the pools at least the planned objects.
        assert int(sockets[socket]["heap_allocated_bytes"]) >= int(sockets[socket]["mempool_bytes"])
    data_pools = [pool for pool in table(demo["memory"], "mempool") if "_s" in pool["mempool"]]
    assert len(data_pools) == len(plan)
    for pool in data_pools:
        planned = plan[int(pool["socket"])]
        assert int(pool["mbufs"]) == planned["mbufs"]
        # The plan's per-object bound holds for DPDK's real layout (header, mbuf, data room).
        assert int(pool["object_bytes"]) <= planned["object_bytes"]
        assert int(pool["bytes"]) >= planned["mbufs"] * int(pool["object_bytes"])


@pytest.mark.parametrize("config", GATEWAYS)
def test_scripts_hugepages_reserves_what_braid_plans(demo, config):
    path = SOURCE_ROOT / "config" / config
    check_plan_against_reservation(memory_plan("-c", path), hugepage_reservation(path),
                                   dpdk_own_bytes(demo))


def test_two_nodes_of_a_copied_sysfs_are_planned_like_scripts_hugepages_does(demo):
    config, root = FIXTURES / "gateway.yaml", FIXTURES / "untuned"
    plan = memory_plan("-c", config, "--sysfs", root / "sys")
    assert sorted(plan) == [0, 1]
    check_plan_against_reservation(
        plan, hugepage_reservation(config, "--sysfs", root / "sys", "--procfs", root / "proc"),
        dpdk_own_bytes(demo))


def check_plan_against_reservation(plan, reservation, dpdk_own):
    assert sorted(reservation) == sorted(plan)
    for node, (mib, mbufs, data_room) in reservation.items():
        assert (mbufs, data_room) == (plan[node]["mbufs"], plan[node]["data_room"]), node
        assert mib * 1024 * 1024 >= plan[node]["bytes"] + dpdk_own, (node, plan[node], dpdk_own)


def test_the_plan_in_deploy_md_is_what_braid_prints():
    """doc/deploy.md shows `braid --check --memory` for the 2x100G gateway: it is real output."""
    text = (SOURCE_ROOT / "doc/deploy.md").read_text()
    command = "$ braid --config config/storage-gateway-2x100g-mlx5.yaml --check --portable --memory\n"
    assert command in text
    shown = text.split(command, 1)[1].split("```", 1)[0]
    result = subprocess.run([BRAID, "--config", "config/storage-gateway-2x100g-mlx5.yaml",
                             "--check", "--portable", "--memory"], capture_output=True, text=True,
                            timeout=60, cwd=SOURCE_ROOT)
    assert result.returncode == 0, result.stderr
    assert shown == result.stdout


def test_the_dual_socket_gateway_is_planned_per_socket_like_scripts_hugepages_does(demo, tmp_path):
    """config/dual-socket-2x2x100g.yaml on the machine it was written for (a sysfs with its
    devices on two nodes): a pool per socket, each the size scripts/hugepages reserves for."""
    sysfs = tmp_path / "sys"
    for address, node in [("0000:3b:00.0", 0), ("0000:5e:00.0", 0), ("0000:5e:00.1", 0),
                          ("0000:af:00.0", 1), ("0000:d8:00.0", 1), ("0000:d8:00.1", 1)]:
        device = sysfs / "bus/pci/devices" / address
        device.mkdir(parents=True)
        (device / "numa_node").write_text(f"{node}\n")
    for node in (0, 1):
        pages = sysfs / f"devices/system/node/node{node}/hugepages/hugepages-2048kB"
        pages.mkdir(parents=True)
        (pages / "nr_hugepages").write_text("0\n")
        (pages / "free_hugepages").write_text("0\n")
    (sysfs / "devices/system/node/node0/cpu0").mkdir()
    (tmp_path / "proc").mkdir()
    config = SOURCE_ROOT / "config/dual-socket-2x2x100g.yaml"
    plan = memory_plan("-c", config, "--sysfs", sysfs)
    assert sorted(plan) == [0, 1]
    assert plan[0]["mbufs"] == plan[1]["mbufs"]  # the two halves are alike
    check_plan_against_reservation(
        plan, hugepage_reservation(config, "--sysfs", sysfs, "--procfs", tmp_path / "proc"),
        dpdk_own_bytes(demo))
