"""scripts/install into a temporary --destdir, and the systemd unit it lays out (checked with
systemd-analyze verify when that command exists)."""

import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import BRAID, FIXTURES, SOURCE_ROOT, run_script

UNIT = "etc/systemd/system/braid.service"
# Built by meson when pandoc is there (doc/man/meson.build; scripts/deps installs pandoc).
MAN_DIR = os.environ.get("BRAID_MAN_DIR")
MAN_PAGES = ("man8/braid.8", "man8/braidctl.8", "man5/braid.yaml.5")


def install(destdir, *args):
    return run_script("install", "--destdir", destdir, "--binary", BRAID, *args)


def test_dry_run_lists_everything_and_writes_nothing(tmp_path):
    result = install(tmp_path, "--dry-run")
    assert result.returncode == 0, result.stderr
    for target in ("usr/local/bin/braid", "usr/local/bin/braidctl",
                   "usr/local/libexec/braid/preflight",
                   "usr/local/libexec/braid/hugepages", "usr/local/libexec/braid/bind",
                   "usr/local/libexec/braid/lib/common.bash", "etc/braid/braid.yaml",
                   "etc/sysusers.d/braid.conf", "usr/local/share/doc/braid/deploy.md",
                   *(f"usr/local/share/man/{page}" for page in (MAN_PAGES if MAN_DIR else ()))):
        assert f"would install: " in result.stdout and f"{tmp_path}/{target}" in result.stdout, target
    assert f"would create: {tmp_path}/{UNIT}" in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_installs_into_destdir_with_prefix(tmp_path):
    result = install(tmp_path, "--prefix", "/opt/braid", "--enable")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "opt/braid/bin/braid").stat().st_mode & 0o111
    assert (tmp_path / "opt/braid/bin/braidctl").stat().st_mode & 0o111
    unit = (tmp_path / UNIT).read_text()
    assert "ExecStart=/opt/braid/bin/braid --config /etc/braid/braid.yaml" in unit
    assert "/usr/local" not in unit
    for setting in ("Restart=on-failure", "ExecReload=/opt/braid/bin/braidctl restart",
                    "RestartForceExitStatus=75", "RuntimeDirectoryPreserve=restart",
                    "LimitMEMLOCK=infinity", "RuntimeDirectory=braid", "Nice=-10",
                    "User=braid", "LimitRTPRIO=99", "\nCPUAffinity=0-1\n",  # demo: main 0, worker 1 "AmbientCapabilities=CAP_IPC_LOCK CAP_NET_ADMIN CAP_NET_RAW "
                    "CAP_SYS_RAWIO CAP_DAC_OVERRIDE"):
        assert setting in unit, setting
    assert (tmp_path / "etc/systemd/system/multi-user.target.wants/braid.service").is_symlink()
    assert (tmp_path / "etc/braid/braid.yaml").read_text() == (SOURCE_ROOT / "config/demo.yaml").read_text()
    # The installed scripts find their helpers and the installed binary.
    preflight = subprocess.run([str(tmp_path / "opt/braid/libexec/braid/preflight"), "--config",
                                str(tmp_path / "etc/braid/braid.yaml")],
                               capture_output=True, text=True, timeout=120)
    assert "PASS config:" in preflight.stdout, preflight.stdout + preflight.stderr


def unit_line(destdir, key):
    lines = [line for line in (destdir / UNIT).read_text().splitlines() if line.startswith(key + "=")]
    assert len(lines) == 1, lines
    return lines[0]


def test_cpu_affinity_is_the_configs_lcores(tmp_path):
    result = install(tmp_path, "--config", FIXTURES / "gateway.yaml")
    assert result.returncode == 0, result.stderr
    # main lcore 0, workers 2, 3, 10, 11: EAL pins each; EAL's own threads land on CPU 0.
    assert unit_line(tmp_path, "CPUAffinity") == "CPUAffinity=0,2-3,10-11"
    assert "CPUAffinity=0,2-3,10-11: the main lcore and the workers of" in result.stdout


def test_cpu_affinity_follows_the_config_that_is_kept(tmp_path):
    assert install(tmp_path, "--config", FIXTURES / "gateway.yaml").returncode == 0
    # A new config with other lcores goes to braid.yaml.new; the service still runs the old one.
    result = install(tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "etc/braid/braid.yaml.new").exists()
    assert unit_line(tmp_path, "CPUAffinity") == "CPUAffinity=0,2-3,10-11"


def test_cpu_affinity_is_left_empty_when_lcores_are_remapped(tmp_path):
    remapped = tmp_path / "remapped.yaml"
    remapped.write_text((FIXTURES / "gateway.yaml").read_text().replace(
        "eal:\n", 'eal:\n  args: ["--lcores", "0,2@4,3,10,11"]\n'))
    result = install(tmp_path / "dest", "--config", remapped)
    assert result.returncode == 0, result.stderr
    assert unit_line(tmp_path / "dest", "CPUAffinity") == "CPUAffinity="
    assert "--lcores" in result.stderr and "systemctl edit braid" in result.stderr


def test_only_the_protocol_loop_may_go_real_time(tmp_path):
    # SCHED_FIFO for the whole process would make the busy-polling workers real-time:
    # protocol_rt_priority switches the protocol loop alone, within LimitRTPRIO.
    assert install(tmp_path).returncode == 0
    unit = (tmp_path / UNIT).read_text()
    assert not any(line.startswith("CPUScheduling") for line in unit.splitlines())
    assert unit_line(tmp_path, "LimitRTPRIO") == "LimitRTPRIO=99"
    assert "CAP_SYS_NICE" not in unit_line(tmp_path, "AmbientCapabilities")


def test_existing_config_is_kept(tmp_path):
    assert install(tmp_path).returncode == 0
    config = tmp_path / "etc/braid/braid.yaml"
    config.write_text(config.read_text() + "# edited by the operator\n")
    result = install(tmp_path, "--config", FIXTURES / "gateway.yaml")
    assert result.returncode == 0, result.stderr
    assert "# edited by the operator" in config.read_text()
    assert (tmp_path / "etc/braid/braid.yaml.new").read_text() == (FIXTURES / "gateway.yaml").read_text()


def test_installing_the_config_already_in_place_writes_no_copy(tmp_path):
    assert install(tmp_path).returncode == 0
    config = tmp_path / "etc/braid/braid.yaml"
    result = install(tmp_path, "--config", config)
    assert result.returncode == 0, result.stderr
    assert "is already this config" in result.stdout + result.stderr
    assert not (tmp_path / "etc/braid/braid.yaml.new").exists()


def test_refuses_a_config_braid_rejects(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("ports: []\n")
    result = install(tmp_path / "dest", "--config", broken)
    assert result.returncode == 1 and "does not pass braid --check" in result.stderr
    assert not (tmp_path / "dest").exists()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_unit_verifies(tmp_path):
    assert install(tmp_path).returncode == 0
    # verify wants ExecStart's binary to exist: point the staged unit at the staged binary.
    unit = (tmp_path / UNIT).read_text().replace("/usr/local/bin/braid", str(tmp_path / "usr/local/bin/braid"))
    checked = tmp_path / "braid.service"
    checked.write_text(unit)
    result = subprocess.run(["systemd-analyze", "verify", str(checked)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "braid.service" not in result.stderr, result.stderr  # no warnings about the unit itself


def test_a_missing_braidctl_is_named(tmp_path):
    result = install(tmp_path, "--braidctl", str(tmp_path / "nowhere/braidctl"))
    assert result.returncode != 0
    assert f"no braidctl binary at {tmp_path}/nowhere/braidctl" in result.stderr, result.stderr
    assert not (tmp_path / "usr").exists()



@pytest.mark.skipif(MAN_DIR is None, reason="no man pages built (pandoc missing at build time)")
def test_installs_the_man_pages(tmp_path):
    # The default --man is the binary's build: <build>/app/braid/braid -> <build>/doc/man.
    result = install(tmp_path, "--prefix", "/opt/braid")
    assert result.returncode == 0, result.stderr
    for page in MAN_PAGES:
        installed = tmp_path / "opt/braid/share/man" / page
        assert installed.read_text() == (pathlib.Path(MAN_DIR) / pathlib.Path(page).name).read_text(), page
        # A page with a table starts with tbl's preprocessor line ('\" t) first.
        text = installed.read_text().removeprefix("'\\\" t\n")
        assert text.startswith(".\\\" Automatically generated by Pandoc"), page
    if shutil.which("man"):
        shown = subprocess.run(["man", "-l", str(tmp_path / "opt/braid/share/man/man8/braidctl.8")],
                               capture_output=True, text=True, env=dict(os.environ, MANWIDTH="100"))
        assert shown.returncode == 0 and "--file-prefix" in shown.stdout, shown.stderr


def test_missing_man_pages_are_said_not_fatal(tmp_path):
    result = install(tmp_path, "--man", str(tmp_path / "nowhere"))
    assert result.returncode == 0, result.stderr
    assert f"no man page {tmp_path}/nowhere/braid.8" in result.stdout, result.stdout
    assert not (tmp_path / "usr/local/share/man").exists()
