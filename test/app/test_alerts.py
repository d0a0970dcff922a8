"""The alerting rules of config/prometheus/braid-alerts.yml: `promtool check rules` and `promtool
test rules` (braid-alerts.test.yml: every alert fires in one case and stays silent in another),
every alert complete (for, severity, summary, description, a runbook anchor that doc/alerts.md
has, a row in its table), and then the rules in a real Prometheus scraping a running braid on
the demo topology: every rule evaluates with health "ok", every metric selector in it returns
series (and so does the expression without its threshold, where it ends in one), and the
member-down alert fires after `braidctl set member m1 down` and resolves after `up`.

The live copy of the rules differs in one thing, said here: BraidMemberNotDistributing's `for:`
is LIVE_FOR instead of 1m (the evaluation interval is 1 s), so that it fires within seconds."""

import re
import subprocess
import time

import pytest
import yaml

from braidlib import ctl
from promlib import PROMETHEUS, PROMTOOL, SOURCE_ROOT, api_get, query, scraped_braid

RULES_DIR = SOURCE_ROOT / "config" / "prometheus"
RULES = RULES_DIR / "braid-alerts.yml"
RULE_TESTS = RULES_DIR / "braid-alerts.test.yml"
ALERTS_DOC = SOURCE_ROOT / "doc" / "alerts.md"
INSTANCES = ("gw-a",)
MEMBER_ALERT = "BraidMemberNotDistributing"
LIVE_FOR = "3s"
# A metric selector: braid's own or Prometheus' `up`, with its label matchers.
SELECTOR = re.compile(r"(?<![\w:])(braid_[a-z0-9_]+|up)(\{[^}]*\})?")
THRESHOLD = re.compile(r"^(?P<lhs>.*?)\s*(?:>=|<=|==|!=|>|<)\s*[0-9.]+\s*$", re.S)

pytestmark = pytest.mark.skipif(PROMETHEUS is None or PROMTOOL is None,
                                reason="prometheus is not installed (scripts/deps installs it)")


def alert_rules():
    return [rule for group in yaml.safe_load(RULES.read_text())["groups"]
            for rule in group["rules"] if "alert" in rule]


def test_promtool_checks_and_unit_tests_the_rules():
    for command in (["check", "rules", RULES.name], ["test", "rules", RULE_TESTS.name]):
        result = subprocess.run([PROMTOOL, *command], cwd=RULES_DIR, capture_output=True,
                                text=True, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr


def test_every_alert_is_complete_documented_and_unit_tested():
    doc = ALERTS_DOC.read_text()
    anchors = {re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")
               for heading in re.findall(r"^#+ (.+)$", doc, re.M)}
    fired, silent = set(), set()
    for test in yaml.safe_load(RULE_TESTS.read_text())["tests"]:
        for case in test["alert_rule_test"]:
            (fired if case["exp_alerts"] else silent).add((case["alertname"], test["name"]))
    problems = []
    for rule in alert_rules():
        name = rule["alert"]
        if "for" not in rule:
            problems.append(f"{name}: no for:")
        if rule.get("labels", {}).get("severity") not in ("critical", "warning"):
            problems.append(f"{name}: severity is not critical or warning")
        annotations = rule.get("annotations", {})
        for key in ("summary", "description", "runbook"):
            if not annotations.get(key):
                problems.append(f"{name}: no {key} annotation")
        runbook = annotations.get("runbook", "")
        if runbook != f"doc/alerts.md#{name.lower()}" or name.lower() not in anchors:
            problems.append(f"{name}: runbook {runbook!r} is not a section of doc/alerts.md")
        fired_by = [test for alert, test in fired if alert == name]
        if not fired_by:
            problems.append(f"{name}: no promtool test makes it fire")
        if not any(alert == name for alert, _ in silent):
            problems.append(f"{name}: no promtool test where it must stay silent")
        row = re.search(rf"^\| `{name}` \|(.*)$", doc, re.M)
        if not row:
            problems.append(f"{name}: no row in doc/alerts.md's table")
        elif not any(test in row.group(1) for test in fired_by):
            problems.append(f"{name}: doc/alerts.md's row names none of {fired_by}")
    assert not problems, "\n".join(problems)


def write_live_rules(directory):
    rules = yaml.safe_load(RULES.read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            if rule.get("alert") == MEMBER_ALERT:
                rule["for"] = LIVE_FOR
    path = directory / "braid-alerts.yml"
    path.write_text(yaml.safe_dump(rules))
    return path


@pytest.fixture(scope="module")
def live():
    with scraped_braid("alerts", INSTANCES, lambda d: [write_live_rules(d)]) as scraped:
        yield scraped


def evaluated_rules(api, since):
    """The rules once every one has been evaluated after `since` (an RFC 3339 time)."""
    deadline = time.monotonic() + 30
    while True:
        rules = [rule for group in api_get(api, "/api/v1/rules")["groups"]
                 for rule in group["rules"]]
        if rules and all(rule.get("lastEvaluation", "") > since for rule in rules):
            return rules
        assert time.monotonic() < deadline, f"rules not evaluated since {since}: {rules}"
        time.sleep(0.5)


def test_every_rule_is_healthy_and_its_selectors_return_series(live):
    since = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    rules = evaluated_rules(live["api"], since)
    assert {rule["name"] for rule in rules} == {rule["alert"] for rule in alert_rules()}
    problems = []
    report = []
    for rule in rules:
        if rule["health"] != "ok":
            problems.append(f"{rule['name']}: health {rule['health']}: {rule.get('lastError')}")
        selectors = {match.group(0) for match in SELECTOR.finditer(rule["query"])}
        if not selectors:
            problems.append(f"{rule['name']}: no metric selector in {rule['query']}")
        counts = {}
        for selector in sorted(selectors):
            counts[selector] = len(query(live["api"], selector))
            if counts[selector] == 0:
                problems.append(f"{rule['name']}: {selector} returns no series")
        threshold = THRESHOLD.match(rule["query"])
        lhs = threshold.group("lhs") if threshold else None
        if lhs and not re.search(r"(>|<|==|!=|\bunless\b|\band\b|\bor\b)", lhs):
            counts["without threshold"] = len(query(live["api"], lhs))
            if counts["without threshold"] == 0:
                problems.append(f"{rule['name']}: {lhs} returns no series")
        report.append((rule["name"], rule["state"], counts))
    print("\nalert rules against a running braid: state, series per selector")
    for name, state, counts in report:
        print(f"  {name} ({state}): " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    assert not problems, "\n".join(problems)


def member_alert(api, member):
    for alert in api_get(api, "/api/v1/alerts")["alerts"]:
        labels = alert["labels"]
        if labels.get("alertname") == MEMBER_ALERT and labels.get("member") == member:
            return alert
    return None


def wait_for_alert(api, member, wanted, timeout=60):
    """Polls /api/v1/alerts until the member alert's state is `wanted` (None: gone); returns
    the seconds it took."""
    start = time.monotonic()
    while True:
        alert = member_alert(api, member)
        state = alert["state"] if alert else None
        if state == wanted:
            return time.monotonic() - start
        assert time.monotonic() - start < timeout, f"{MEMBER_ALERT} {member}: {state}"
        time.sleep(0.2)


def test_member_down_alert_fires_and_resolves(live):
    assert member_alert(live["api"], "m1") is None, "m1 alerts before it was taken down"
    ctl(live, "set", "member", "m1", "down")
    try:
        to_pending = wait_for_alert(live["api"], "m1", "pending")
        to_firing = to_pending + wait_for_alert(live["api"], "m1", "firing")
        alert = member_alert(live["api"], "m1")
        assert alert["labels"]["bond"] == "uplink" and alert["labels"]["severity"] == "warning"
        assert "m1" in alert["annotations"]["summary"], alert
        assert alert["annotations"]["runbook"] == f"doc/alerts.md#{MEMBER_ALERT.lower()}"
    finally:
        ctl(live, "set", "member", "m1", "up")
    to_resolved = wait_for_alert(live["api"], "m1", None)
    print(f"\n{MEMBER_ALERT} (for: {LIVE_FOR}, scrape and evaluation every 1 s): pending "
          f"{to_pending:.1f} s and firing {to_firing:.1f} s after set member m1 down; gone "
          f"{to_resolved:.1f} s after set member m1 up")
