"""The man pages agree with the programs and with doc/config.md: every option braid --help and
braidctl --help print is in braid(8) / braidctl(8), every key of doc/config.md's tables is in
braid.yaml(5) with its full path (bonds[].lacp.rate), and the built pages are roff."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

SOURCE_ROOT = pathlib.Path(os.environ.get("BRAID_SOURCE_ROOT", pathlib.Path(__file__).parents[2]))
MAN_SOURCES = SOURCE_ROOT / "doc/man"
MAN_DIR = os.environ.get("BRAID_MAN_DIR")
PROGRAMS = {"braid": os.environ.get("BRAID", "build/app/braid/braid"),
            "braidctl": os.environ.get("BRAIDCTL", "build/app/braidctl/braidctl")}


def help_options(binary):
    text = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30,
                          check=True).stdout
    options = set()
    for line in text.splitlines():
        if re.match(r"\s+-", line):  # "  -c, --config FILE   text" or "      --check   text"
            options |= set(re.findall(r"--?[A-Za-z][\w-]*", line.strip().split("  ")[0]))
    return options


def man_text(name):
    """The page's markdown with pandoc's escapes undone (\\-\\- is --)."""
    return (MAN_SOURCES / f"{name}.md").read_text().replace("\\-", "-").replace("\\_", "_")


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_every_help_option_is_in_the_man_page(program):
    options = help_options(PROGRAMS[program])
    assert {"-h", "--help", "-V", "--version"} <= options, options
    page = man_text(f"{program}.8")
    documented = set(re.findall(r"\*\*(--?[A-Za-z][\w-]*)\*\*", page))
    missing = options - documented
    assert not missing, f"doc/man/{program}.8.md lacks {sorted(missing)} (from {program} --help)"


def config_keys():
    """Every key of doc/config.md's tables with its path: `eal.file_prefix`, `ports[].mtu`,
    `bonds[].scheduler.aimd.floor_permille` (a cell `a.x`, `y` means a.x and a.y). A section
    is a list when its heading or its first line says so ("(required, a list)", "A list of")."""
    keys, section, heading_line = [], None, None
    for line in (SOURCE_ROOT / "doc/config.md").read_text().splitlines():
        heading = re.match(r"## `([\w\[\].]+)`(.*)", line)
        if heading:
            name, rest = heading.groups()
            section = name + ("[]" if "a list" in rest else "")
            heading_line = True
            continue
        if heading_line and line.strip():
            if line.startswith("A list of") and not section.endswith("]"):
                section += "[]"
            heading_line = False
        if line.startswith("## "):
            section = None
        row = re.match(r"\| (`[^|]+`) \|", line)
        if section is None or not row or row.group(1) == "`key`":
            continue
        group = ""
        for key in re.findall(r"`([^`]+)`", row.group(1)):
            if "." in key:
                group = key.rsplit(".", 1)[0] + "."
            elif group:
                key = group + key
            keys.append(f"{section}.{key}")
    return keys


def test_config_md_tables_are_read():
    keys = config_keys()
    for key in ("eal.file_prefix", "ports[].rx_descriptors", "ports[].tx_descriptors",
                "ports[].rss.key", "bonds[].lacp.fallback", "bonds[].scheduler.aimd.smoothing_permille",
                "bonds[].scheduler.congestion.rdma_devices", "metrics.listen", "trace.seed"):
        assert key in keys, key
    assert len(keys) > 60, keys


def test_every_config_key_is_in_braid_yaml_5():
    page = man_text("braid.yaml.5")
    documented = set(re.findall(r"\*\*([\w\[\].]+)\*\*", page))
    missing = [key for key in config_keys() if key not in documented]
    assert not missing, f"doc/man/braid.yaml.5.md lacks these keys of doc/config.md: {missing}"


LIMITS_TOOL = os.environ.get("BRAID_CONFIG_LIMITS")


@pytest.mark.skipif(LIMITS_TOOL is None, reason="BRAID_CONFIG_LIMITS (the config_limits tool) unset")
def test_limits_tables_are_the_loaders_and_every_limited_key_is_documented():
    """doc/config.md's and braid.yaml(5)'s limits tables are what the config loader checks (a
    range changed in the code and not in the docs fails), and every key with a range is in
    config.md's tables (so a new key cannot go undocumented)."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    import config_limits
    table = config_limits.generated_table(LIMITS_TOOL)
    for path in config_limits.DOCS:
        assert config_limits.documented_table(path) == table, (
            f"{path}: the limits table is not the loader's; run test/docs/config_limits.py "
            "--update")
    documented = set(config_keys())
    limited = re.findall(r"^\| `([^`]+)` \|", table, re.M)
    assert len(limited) > 50, table
    # A list of numbers (workers.lcores) is checked element by element: `lcores[].lcore`.
    missing = [key for key in limited
               if key not in documented and re.sub(r"\[\]\.\w+$", "", key) not in documented]
    assert not missing, f"keys the loader range-checks that doc/config.md does not name: {missing}"


@pytest.mark.skipif(MAN_DIR is None, reason="no man pages built (pandoc missing at build time)")
@pytest.mark.parametrize("page", ["braid.8", "braidctl.8", "braid.yaml.5"])
def test_pages_are_built(page):
    roff = (pathlib.Path(MAN_DIR) / page).read_text()
    name, section = page.rsplit(".", 1)
    assert f'.TH "{name.upper()}" "{section}"' in roff, roff[:400]
    assert ".SH NAME" in roff and ".SH SEE ALSO" in roff
