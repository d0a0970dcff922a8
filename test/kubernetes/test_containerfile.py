"""deploy/container/Containerfile, checked without podman or docker: every package it names
exists in Debian 12, the runtime stage installs no build tools, and the runtime packages (with
what apt installs along with them) provide every library that braid, braidctl and the PMDs the
Kubernetes config uses resolve on this Debian 12 machine."""

import os
import re
import subprocess
from pathlib import Path

import pytest

import k8slib

CONTAINERFILE = k8slib.SOURCE_ROOT / "deploy" / "container" / "Containerfile"
PMD_DIR = Path("/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0")
# The PMDs deploy/kubernetes/braid.yaml needs (mlx5 VFs on the PCI bus, virtio_user on vhost-net,
# net_tap where there is none) and what every DPDK process loads (the ring mempool driver).
PMDS = ["librte_net_mlx5.so.23", "librte_common_mlx5.so.23", "librte_bus_pci.so.23",
        "librte_bus_vdev.so.23", "librte_bus_auxiliary.so.23", "librte_mempool_ring.so.23",
        "librte_net_virtio.so.23", "librte_net_tap.so.23"]
# An ASan+UBSan build links the sanitizer runtimes; a release build (what the image has) does not.
SANITIZER_LIBS = re.compile(r"^lib(asan|ubsan|lsan|tsan)\.so")


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def stages():
    """[(FROM line, text of the stage)]."""
    text = CONTAINERFILE.read_text()
    parts = re.split(r"^(FROM .*)$", text, flags=re.M)
    return [(parts[i].strip(), parts[i + 1]) for i in range(1, len(parts), 2)]


def installed_packages(stage_text):
    packages = []
    for command in re.findall(r"apt-get install ((?:[^\n]*\\\n)*[^\n]*)", stage_text):
        words = command.replace("\\\n", " ").split("&&")[0].split()
        packages += [w for w in words if not w.startswith("-")]
    return packages


def runtime_packages():
    (_, runtime) = stages()[-1]
    block = re.search(r"# runtime-packages-begin\n(.*)# runtime-packages-end", runtime, re.S)
    assert block, "the runtime stage's install is not between the runtime-packages marks"
    return installed_packages(block.group(1))


def closure(packages):
    """The packages apt installs for these with --no-install-recommends, and Debian's essential
    set that every debian:bookworm image has."""
    essential = run("dpkg-query", "-W", "-f", "${Package} ${Essential}\n").stdout
    roots = list(packages) + [line.split()[0] for line in essential.splitlines() if line.endswith(" yes")]
    out = run("apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
              "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *roots)
    assert out.returncode == 0, out.stderr
    return {line.split(":")[0] for line in out.stdout.splitlines()
            if line and not line.startswith((" ", "<"))}


def owners(paths):
    """{path: the Debian package that ships it}, with one dpkg -S for all (usrmerge: a file may
    be registered under /lib or /usr/lib)."""
    candidates = {}
    for path in paths:
        for p in {path, os.path.realpath(path)}:
            for alt in (p, p[len("/usr"):] if p.startswith("/usr/lib/") else "/usr" + p):
                candidates.setdefault(alt, path)
    out = run("dpkg", "-S", *sorted(candidates))
    found = {}
    for line in out.stdout.splitlines():
        package, _, file = line.partition(": ")
        if file in candidates:
            found.setdefault(candidates[file], package.split(":")[0])
    return found


def resolved_libraries(binary):
    out = run("ldd", str(binary))
    assert out.returncode == 0, out.stderr
    libs = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\s*(\S+) => (\S+)", line)
        if m:
            assert m.group(2) != "not", f"{binary}: {m.group(1)} not found"
            libs[m.group(1)] = m.group(2)
    return libs


def binaries():
    # A local release build is what the image ships; the test build's ASan binaries otherwise.
    release = k8slib.SOURCE_ROOT / "build" / "app"
    found = []
    for name, env in (("braid", "BRAID"), ("braidctl", "BRAIDCTL")):
        path = release / name / name
        if not path.exists():
            path = Path(os.environ.get(env, ""))
        assert path.is_file(), f"no {name} binary (build it, or set {env})"
        found.append(path)
    return found


def test_stages_base_and_entrypoint():
    found = stages()
    assert len(found) == 2, "a builder stage and a runtime stage"
    for line, _ in found:
        assert re.match(r"FROM debian:bookworm(-slim)?( AS \w+)?$", line), line
    (_, builder), (_, runtime) = found
    assert "meson setup" in builder and "meson compile" in builder and "--buildtype=release" in builder
    assert re.search(r'^ENTRYPOINT \["/usr/bin/braid", "--config", "/etc/braid/braid.yaml"\]$', runtime, re.M)
    assert "COPY deploy/container/braid-pod-start /usr/bin/braid-pod-start" in runtime


def test_every_package_exists_in_debian_12():
    assert "bookworm" in Path("/etc/os-release").read_text() or \
        Path("/etc/debian_version").read_text().startswith("12"), "not a Debian 12 machine"
    packages = sorted({p for _, text in stages() for p in installed_packages(text)})
    out = run("apt-cache", "show", "--no-all-versions", *packages)
    known = set(re.findall(r"^Package: (\S+)$", out.stdout, re.M))
    missing = [p for p in packages if p not in known]
    assert not missing, f"not Debian 12 packages: {missing} ({out.stderr.strip()})"


def test_runtime_stage_installs_no_build_tools():
    for package in runtime_packages():
        assert not re.search(r"-dev$|^(g\+\+|gcc|clang|meson|ninja-build|pkg-config|cmake)$", package), \
            f"runtime stage installs {package}"


def test_runtime_packages_provide_every_library():
    packages = closure(runtime_packages())
    pmds = [PMD_DIR / pmd for pmd in PMDS]
    for path in pmds:
        assert path.exists(), f"{path}: this machine lacks the PMD (scripts/deps installs dpdk)"
    objects = [(b, resolved_libraries(b)) for b in binaries() + pmds]
    owner = owners([str(p) for p in pmds] + [p for _, libs in objects for p in libs.values()])
    for path in pmds:
        assert owner.get(str(path)) in packages, \
            f"PMD {path.name} is in {owner.get(str(path))}, which the runtime stage does not install"
    checked = set()
    for binary, libs in objects:
        for soname, path in libs.items():
            if SANITIZER_LIBS.match(soname):
                print(f"{binary}: {soname} skipped: a sanitizer runtime of the test build")
                continue
            assert path in owner, f"{binary}: {path} belongs to no Debian package"
            assert owner[path] in packages, \
                f"{binary} needs {soname} ({path}) from {owner[path]}, which the runtime stage does not install"
            checked.add(soname)
    print(f"{len(checked)} libraries of {len(objects)} binaries and PMDs, all in the runtime packages")
    assert checked
