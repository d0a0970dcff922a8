"""scripts/bind: mlx5 stays on mlx5_core, the IOMMU is checked before vfio-pci, and --dry-run
shows the modprobe / dpdk-devbind.py / driverctl commands. Only dry runs and refusals: binding is
never attempted here."""

import os
import re

from conftest import FIXTURES, SOURCE_ROOT, run_script, tree_snapshot


def ice_owned_copy(machine_copy):
    """The tuned machine with 0000:af:00.0 back on the kernel's ice and vfio-pci not loaded."""
    machine = machine_copy("tuned")
    driver = machine / "sys/bus/pci/devices/0000:af:00.0/driver"
    driver.unlink()
    os.symlink("../../../../bus/pci/drivers/ice", driver)
    (machine / "sys/module/vfio_pci").rmdir()
    return machine


def test_dry_run_binds_intel_and_leaves_mlx5(machine_copy):
    machine = ice_owned_copy(machine_copy)
    before = tree_snapshot(machine)
    result = run_script("bind", "0000:af:00.0", "af:00.1", "3b:00.0", "--persist", "--dry-run",
                        machine=machine)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "0000:3b:00.0 is mlx5: it stays on mlx5_core" in out and "bifurcated" in out
    assert "0000:af:00.1 is already on vfio-pci" in out
    assert "IOMMU: 4 groups" in out
    assert "would run: modprobe vfio-pci" in out
    assert re.search(r"would run: \S*dpdk-devbind.py --bind=vfio-pci 0000:af:00.0$", out, re.M)
    assert "would run: driverctl set-override 0000:af:00.0 vfio-pci" in out
    assert "3b:00.0" not in "".join(line for line in out.splitlines() if "would run" in line)
    assert tree_snapshot(machine) == before


def test_no_iommu_refuses_vfio():
    result = run_script("bind", "--config", FIXTURES / "gateway.yaml", "--dry-run", machine="untuned")
    assert result.returncode == 1
    assert "no IOMMU groups" in result.stderr and "intel_iommu=on iommu=pt" in result.stderr
    assert "would run" not in result.stdout
    assert "is up in the kernel" in result.stderr  # ens2f0 carries traffic: say so first


def test_unbind_returns_to_the_kernel_driver():
    result = run_script("bind", "--unbind", "0000:af:00.1", "--dry-run", machine="tuned")
    assert result.returncode == 0, result.stderr
    assert re.search(r"would run: \S*dpdk-devbind.py --bind=ice 0000:af:00.1$", result.stdout, re.M)


def test_mlx5_on_vfio_is_an_error(machine_copy):
    machine = machine_copy("tuned")
    driver = machine / "sys/bus/pci/devices/0000:3b:00.0/driver"
    driver.unlink()
    os.symlink("../../../../bus/pci/drivers/vfio-pci", driver)
    result = run_script("bind", "0000:3b:00.0", "--dry-run", machine=machine)
    assert result.returncode == 1
    assert "mlx5 must stay on mlx5_core" in result.stderr


def test_absent_device_and_vdev_only_config():
    absent = run_script("bind", "0000:d8:00.0", "--dry-run", machine="tuned")
    assert absent.returncode == 1 and "is not on this machine" in absent.stderr
    demo = run_script("bind", "--config", SOURCE_ROOT / "config/demo.yaml", "--dry-run")
    assert demo.returncode == 0 and "nothing to bind" in demo.stdout


def test_fake_tree_is_never_changed_for_real():
    result = run_script("bind", "0000:af:00.0", machine="tuned")
    assert result.returncode == 1
    assert "--dry-run" in result.stderr


def test_status_and_usage():
    status = run_script("bind", "--status", "--config", FIXTURES / "gateway.yaml", machine="untuned")
    assert status.returncode == 0
    assert "0000:af:00.0 0x8086:0x1592 on ice (ens2f0), node 1" in status.stdout
    assert run_script("bind", "--dry-run", machine="tuned").returncode == 2
    assert run_script("bind", "not-an-address", machine="tuned").returncode == 2
    assert "vfio-pci" in run_script("bind", "--help").stdout
