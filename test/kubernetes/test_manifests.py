"""deploy/kubernetes: every manifest valid against its schema (as written and as kustomize renders
it), the probes on braid's health endpoints, Guaranteed resources, no privileged container, the
Multus networks and SR-IOV resources agreeing with each other and with braid.yaml, and the pod's
config rendered by braid-pod-start and accepted by braid --check."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

import k8slib

BRAID = os.environ.get("BRAID", str(k8slib.SOURCE_ROOT / "build" / "app" / "braid" / "braid"))
POD_START = k8slib.SOURCE_ROOT / "deploy" / "container" / "braid-pod-start"
HUGEPAGES = ("hugepages-1Gi", "hugepages-2Mi")


def rendered():
    """kubectl's rendering where there is a kubectl, else k8slib's own."""
    return k8slib.kubectl_render() or k8slib.render()


def braid_container(objects):
    ds = k8slib.find(objects, "DaemonSet", "braid")[0]
    return ds, ds["spec"]["template"]["spec"], ds["spec"]["template"]["spec"]["containers"][0]


def assert_valid(labelled):
    status, output = k8slib.validate(labelled)
    print(output)
    assert status == 0, output
    assert output.count("valid: ") == len(labelled)


def test_sources_and_own_rendering_are_valid():
    # The files as written, then the kustomization as k8slib renders it (the generated
    # ConfigMap included): what a machine without kubectl can check.
    assert_valid(k8slib.source_objects())
    objects = k8slib.render()
    print("rendered the kustomization without kubectl: resources, namespace, labels, images, "
          "configMapGenerator")
    assert_valid([("k8slib.render", o) for o in objects])


def test_kubectl_kustomize_is_valid_and_matches_own_rendering():
    objects = k8slib.kubectl_render()
    if objects is None:
        pytest.skip("no kubectl here: test_sources_and_own_rendering_are_valid validated "
                    "k8slib's rendering of the kustomization instead")
    assert_valid([("kubectl kustomize", o) for o in objects])

    def names(objs):
        return sorted((o["kind"], o["metadata"]["name"], o["metadata"].get("namespace")) for o in objs)

    # The fallback renders what kubectl renders (the ConfigMap's hash aside).
    mine = k8slib.render()
    strip = re.compile(r"^(braid-config)-[a-z0-9]+$")
    assert [(k, strip.sub(r"\1", n), ns) for k, n, ns in names(objects)] == \
        [(k, strip.sub(r"\1", n), ns) for k, n, ns in names(mine)]
    assert braid_container(objects)[2]["image"] == braid_container(mine)[2]["image"]
    cm = k8slib.find(objects, "ConfigMap")[0]
    assert cm["data"]["braid.yaml"] == (k8slib.KUSTOMIZE_DIR / "braid.yaml").read_text()
    _, pod, _ = braid_container(objects)
    assert {"name": "config", "configMap": {"name": cm["metadata"]["name"]}} in pod["volumes"]


def test_probes_use_health_endpoints_on_the_services_metrics_port():
    objects = rendered()
    ds, pod, container = braid_container(objects)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    service = k8slib.find(objects, "Service", "braid-metrics")[0]
    (sport,) = [p for p in service["spec"]["ports"] if p["name"] == "metrics"]
    assert sport["port"] == 9464 and ports[sport["targetPort"]] == 9464
    labels = ds["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert service["spec"].get("publishNotReadyAddresses") is True
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz"),
                        ("startupProbe", "/healthz")):
        get = container[probe]["httpGet"]
        assert get["path"] == path, f"{probe} asks {get['path']}"
        assert ports.get(get["port"], get["port"]) == 9464, f"{probe} is not on the metrics port"
    monitor = k8slib.find(objects, "ServiceMonitor", "braid")[0]
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert [e["port"] for e in monitor["spec"]["endpoints"]] == ["metrics"]
    assert monitor["spec"]["endpoints"][0]["path"] == "/metrics"
    # braid listens on every interface of the pod, not 127.0.0.1, or no probe reaches it.
    config = k8slib.load_docs(k8slib.KUSTOMIZE_DIR / "braid.yaml")[0]
    assert config["metrics"]["listen"] == ":9464"


def test_guaranteed_resources_hugepages_and_no_privileged():
    objects = rendered()
    _, pod, container = braid_container(objects)
    requests, limits = container["resources"]["requests"], container["resources"]["limits"]
    assert requests == limits, "requests and limits differ: not Guaranteed QoS"
    assert re.fullmatch(r"[1-9][0-9]*", str(requests["cpu"])), "the CPU manager pins whole CPUs only"
    media = {v["emptyDir"]["medium"] for v in pod["volumes"] if "emptyDir" in v}
    for size in HUGEPAGES:
        assert requests[size] == limits[size]
        assert "HugePages-" + size.split("-")[1] in media, f"no emptyDir for {size}"
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    assert "/dev/hugepages" in mounts
    (vhost,) = [v for v in pod["volumes"] if v["name"] == mounts["/dev/vhost-net"]]
    assert vhost["hostPath"] == {"path": "/dev/vhost-net", "type": "CharDevice"}

    def walk(node, where):
        if isinstance(node, dict):
            assert node.get("privileged") is not True, f"privileged: true at {where}"
            for k, v in node.items():
                walk(v, f"{where}.{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}[{i}]")

    walk(objects, "rendered")
    security = container["securityContext"]
    assert security["capabilities"]["drop"] == ["ALL"]
    assert set(security["capabilities"]["add"]) == {"IPC_LOCK", "NET_ADMIN", "NET_RAW", "SYS_NICE"}
    assert security["allowPrivilegeEscalation"] is False


def assert_networks_agree(objects, template):
    ds, _, container = braid_container(objects)
    networks = json.loads(ds["spec"]["template"]["metadata"]["annotations"]["k8s.v1.cni.cncf.io/networks"])
    nads = {n["metadata"]["name"]: n for n in k8slib.find(objects, "NetworkAttachmentDefinition")}
    requested = {r for r in container["resources"]["limits"] if "/" in r}
    assert container["resources"]["requests"] == container["resources"]["limits"]
    assert {n["name"] for n in networks} == set(nads)
    for network in networks:
        resource = nads[network["name"]]["metadata"]["annotations"]["k8s.v1.cni.cncf.io/resourceName"]
        assert resource in requested, f"network {network['name']} uses {resource}, not requested"
    # Each ${PCIDEVICE_...} of braid.yaml is the device plugin's variable of a requested resource.
    variables = set(re.findall(r"\$\{(PCIDEVICE_[A-Z0-9_]+)\}", template))
    assert variables == {"PCIDEVICE_" + re.sub(r"[./]", "_", r).upper() for r in requested}
    config = yaml.safe_load(template)
    members = {m for b in config["bonds"] for m in b["members"]}
    assert {n["interface"] for n in networks} == members, "the VF netdevs are named after the members"


def test_networks_resources_and_config_placeholders_agree():
    assert_networks_agree(rendered(), (k8slib.KUSTOMIZE_DIR / "braid.yaml").read_text())


def test_doc_overlay_renames_a_resource_consistently(tmp_path):
    # doc/kubernetes.md's overlay, applied to this base with braid.yaml's placeholder renamed
    # as the doc says: kubectl renders it, it validates, and names still agree.
    if shutil.which("kubectl") is None:
        pytest.skip("no kubectl here: the doc's overlay needs kustomize's patches")
    doc = (k8slib.SOURCE_ROOT / "doc" / "kubernetes.md").read_text()
    (overlay,) = re.findall(r"```yaml\n# my-overlay/kustomization.yaml\n(.*?)```", doc, re.S)
    base = os.path.relpath(k8slib.KUSTOMIZE_DIR, tmp_path / "my-overlay")
    (tmp_path / "my-overlay").mkdir()
    (tmp_path / "my-overlay" / "kustomization.yaml").write_text(
        overlay.replace("../deploy/kubernetes", base))
    template = (k8slib.KUSTOMIZE_DIR / "braid.yaml").read_text().replace(
        "PCIDEVICE_INTEL_COM_BRAID_TOR_A", "PCIDEVICE_OPENSHIFT_IO_TOR_A")
    (tmp_path / "my-overlay" / "braid.yaml").write_text(template)
    objects = k8slib.kubectl_render(tmp_path / "my-overlay")
    assert_valid([("doc overlay", o) for o in objects])
    assert_networks_agree(objects, template)
    _, _, container = braid_container(objects)
    assert "openshift.io/tor_a" in container["resources"]["limits"]
    assert container["image"] == "registry.example.com/braid:0.1.0"


def pod_env():
    """The variables the SR-IOV device plugin would set for the DaemonSet's resources."""
    _, _, container = braid_container(k8slib.render())
    env = dict(os.environ)
    for i, resource in enumerate(sorted(r for r in container["resources"]["limits"] if "/" in r)):
        env["PCIDEVICE_" + re.sub(r"[./]", "_", resource).upper()] = f"0000:5e:0{i}.2"
    return env


def pod_start(tmp_path, *args, env=None, prefix=()):
    return subprocess.run([*prefix, str(POD_START), "--template", str(k8slib.KUSTOMIZE_DIR / "braid.yaml"),
                           "--output", str(tmp_path / "braid.yaml"), "--braid", BRAID,
                           "--render-only", "--portable", *args],
                          env=env or pod_env(), capture_output=True, text=True, timeout=120)


def test_pod_config_renders_and_passes_braid_check(tmp_path):
    run = pod_start(tmp_path)
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stderr
    assert "valid" in run.stdout
    text = (tmp_path / "braid.yaml").read_text()
    assert "0000:5e:00.2,dv_flow_en=1" in text and "0000:5e:01.2,dv_flow_en=1" in text
    assert not re.search(r"\$\{[A-Z_]+\}", text.split("\neal:")[1]), "a placeholder is left"


def test_pod_start_refuses_what_the_pod_lacks(tmp_path):
    env = pod_env()
    missing = sorted(k for k in env if k.startswith("PCIDEVICE_"))[0]
    del env[missing]
    run = pod_start(tmp_path, env=env)
    assert run.returncode == 1 and f"no {missing}" in run.stderr, run.stderr
    env = pod_env()
    env[missing] = "0000:5e:00.2,0000:5e:00.3"
    run = pod_start(tmp_path, env=env)
    assert run.returncode == 1 and "more than one device" in run.stderr, run.stderr
    if shutil.which("taskset"):
        run = pod_start(tmp_path, prefix=("taskset", "-c", "0"))
        assert run.returncode == 1 and "2 or more whole CPUs" in run.stderr, run.stderr


def test_a_broken_manifest_fails_validation(tmp_path):
    # The validators catch what a wrong edit does: a port number as a string, a ServiceMonitor
    # endpoint's port as a number, a NAD's config that is not JSON, misspelt fields.
    kdir = tmp_path / "kubernetes"
    shutil.copytree(k8slib.KUSTOMIZE_DIR, kdir)
    daemonset = (kdir / "daemonset.yaml").read_text()
    (kdir / "daemonset.yaml").write_text(daemonset.replace("containerPort: 9464", 'containerPort: "9464"'))
    status, output = k8slib.validate(k8slib.source_objects(kdir))
    assert status == 1 and "containerPort must be integer" in output, output
    (kdir / "daemonset.yaml").write_text(daemonset)
    monitor = (kdir / "servicemonitor.yaml").read_text()
    (kdir / "servicemonitor.yaml").write_text(monitor.replace("- port: metrics", "- port: 9464"))
    status, output = k8slib.validate(k8slib.source_objects(kdir))
    assert status == 1 and "port must be string" in output, output
    (kdir / "servicemonitor.yaml").write_text(monitor)
    networks = (kdir / "networks.yaml").read_text()
    (kdir / "networks.yaml").write_text(networks.replace('"type": "sriov",', '"type": "sriov"', 1))
    status, output = k8slib.validate(k8slib.source_objects(kdir))
    assert status == 1 and "spec.config is not JSON" in output, output
    (kdir / "networks.yaml").write_text(networks.replace("  config: >-", "  confg: >-", 1))
    status, output = k8slib.validate(k8slib.source_objects(kdir))
    assert status == 1 and 'must NOT have additional properties ("confg")' in output, output
    (kdir / "networks.yaml").write_text(networks)
    # A misspelt field, which the schemas allow and the API server refuses (fields.js).
    (kdir / "daemonset.yaml").write_text(daemonset.replace("livenessProbe:", "livenesProbe:"))
    status, output = k8slib.validate(k8slib.source_objects(kdir))
    assert status == 1 and 'unknown field "livenesProbe"' in output, output
