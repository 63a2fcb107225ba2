"""Static checks of deploy/: the files parse, the Kubernetes manifests validate, and the pieces agree.

No container engine runs here (no Docker daemon, no cluster), so nothing is built or started: the Dockerfile,
compose file and nginx config are checked as text, and the Kubernetes manifests against the JSON schemas
that the ``kubernetes-validate`` package ships for a pinned Kubernetes version.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.deploy import configuration

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
K8S = DEPLOY / "k8s"
# A version whose schemas kubernetes-validate ships (it has 1.25 to 1.37 at the time of writing); pinned so
# that a newer package does not silently change what "valid" means.
KUBERNETES_VERSION = "1.30.0"

# The environment the service reads (deploy/CONFIGURATION.md, checked against the code; the engine's loader's
# variables are the install's and the tests', not a deployment's): nothing else may appear in the manifests.
ALLOWED_ENV = {v.name for v in configuration.variables().values() if v.reader != "engine"}
UVICORN_COMMAND = "uvicorn --factory service.app:create_app"

YAML_FILES = sorted([*DEPLOY.rglob("*.yaml"), *DEPLOY.rglob("*.yml")])
K8S_FILES = sorted([*K8S.rglob("*.yaml"), *K8S.rglob("*.yml")])


def load_all(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def k8s_objects() -> list[dict[str, Any]]:
    return [doc for path in K8S_FILES for doc in load_all(path)]


def only(kind: str, name: str | None = None) -> dict[str, Any]:
    found = [
        doc
        for doc in k8s_objects()
        if doc["kind"] == kind and (name is None or doc["metadata"]["name"] == name)
    ]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def api_deployment() -> dict[str, Any]:
    return only("Deployment", "fivehundred-api")


def api_container() -> dict[str, Any]:
    containers = api_deployment()["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return dict(containers[0])


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs with line continuations joined and comments dropped."""
    text = (DEPLOY / "Dockerfile").read_text()
    logical: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        logical.append(current + line)
        current = ""
    result = []
    for line in logical:
        instruction, _, arguments = line.partition(" ")
        result.append((instruction.upper(), arguments.strip()))
    return result


def exec_form(arguments: str) -> list[str]:
    """The argv of an exec-form (JSON array) instruction, else the shell-split words."""
    if arguments.startswith("["):
        value = json.loads(arguments)
        assert isinstance(value, list)
        return [str(v) for v in value]
    return shlex.split(arguments)


# --- every YAML file --------------------------------------------------------------------------------------


def test_there_are_yaml_files() -> None:
    names = {p.relative_to(DEPLOY).as_posix() for p in YAML_FILES}
    expected = {"compose.yaml", "k8s/deployment.yaml", "k8s/service.yaml", "k8s/hpa.yaml", "k8s/pdb.yaml"}
    assert expected <= names


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: p.relative_to(DEPLOY).as_posix())
def test_yaml_parses(path: Path) -> None:
    assert load_all(path), f"{path} holds no document"


# --- Kubernetes -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", K8S_FILES, ids=lambda p: p.relative_to(DEPLOY).as_posix())
def test_manifest_validates_against_pinned_kubernetes(path: Path) -> None:
    for doc in load_all(path):
        # strict: unknown fields (typos) are errors too.
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def test_kubernetes_objects_present() -> None:
    kinds = sorted((doc["apiVersion"], doc["kind"]) for doc in k8s_objects())
    for expected in [
        ("apps/v1", "Deployment"),
        ("v1", "Service"),
        ("autoscaling/v2", "HorizontalPodAutoscaler"),
        ("policy/v1", "PodDisruptionBudget"),
        ("v1", "Secret"),
        ("v1", "ConfigMap"),
        ("apps/v1", "StatefulSet"),
    ]:
        assert expected in kinds, expected


def test_deployment_probes_replicas_and_shutdown() -> None:
    deployment = api_deployment()
    pod = deployment["spec"]["template"]["spec"]
    container = api_container()
    assert deployment["spec"]["replicas"] == 3
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["startupProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        assert container[probe]["httpGet"]["port"] in ("http", container_port())
    assert container["resources"]["requests"] and container["resources"]["limits"]
    # preStop sleep + the app's grace must fit in the termination grace period.
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    config = only("ConfigMap", "fivehundred-config")["data"]
    assert int(pre_stop[1]) + int(config["SHUTDOWN_GRACE_SECONDS"]) < pod["terminationGracePeriodSeconds"]
    # The labels tie the Deployment, Service, HPA and PDB together.
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert only("Service", "fivehundred-api")["spec"]["selector"].items() <= labels.items()
    assert only("PodDisruptionBudget")["spec"]["selector"]["matchLabels"].items() <= labels.items()
    hpa = only("HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "fivehundred-api",
    }
    assert hpa["spec"]["minReplicas"] >= 2
    assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"


def test_deployment_security_context() -> None:
    pod = api_deployment()["spec"]["template"]["spec"]
    container = api_container()
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    assert not security["capabilities"].get("add")


def test_deployment_takes_secrets_from_a_secret() -> None:
    env = {item["name"]: item for item in api_container()["env"]}
    for name in ("SNAPSHOT_KEYS", "API_KEYS", "REDIS_URL"):
        assert "value" not in env[name], f"{name} must not be inline"
        assert env[name]["valueFrom"]["secretKeyRef"]["name"] == "fivehundred-secrets"
    secret = only("Secret", "fivehundred-secrets")
    assert {"SNAPSHOT_KEYS", "API_KEYS", "REDIS_URL"} <= set(secret["stringData"])


def container_port() -> int:
    ports = api_container()["ports"]
    assert len(ports) == 1
    return int(ports[0]["containerPort"])


def resolve_target_port(target: int | str) -> int:
    if isinstance(target, int):
        return target
    by_name = {p["name"]: int(p["containerPort"]) for p in api_container()["ports"]}
    return by_name[target]


def test_ports_agree_across_dockerfile_deployment_and_service() -> None:
    exposed = [args for instruction, args in dockerfile_instructions() if instruction == "EXPOSE"]
    assert exposed == ["8000"]
    service_ports = only("Service", "fivehundred-api")["spec"]["ports"]
    assert len(service_ports) == 1
    assert resolve_target_port(service_ports[0]["targetPort"]) == container_port() == int(exposed[0])
    cmd = exec_form(next(args for instruction, args in dockerfile_instructions() if instruction == "CMD"))
    assert cmd[cmd.index("--port") + 1] == exposed[0]


def manifest_env_names() -> set[str]:
    """Every environment variable name the manifests give any container, directly or through envFrom."""
    objects = k8s_objects()
    config_maps = {d["metadata"]["name"]: d for d in objects if d["kind"] == "ConfigMap"}
    secrets = {d["metadata"]["name"]: d for d in objects if d["kind"] == "Secret"}
    names: set[str] = set()
    for doc in objects:
        template = doc.get("spec", {}).get("template", {}).get("spec", {})
        for container in [*template.get("containers", []), *template.get("initContainers", [])]:
            names.update(item["name"] for item in container.get("env", []))
            for source in container.get("envFrom", []):
                if "configMapRef" in source:
                    names.update(config_maps[source["configMapRef"]["name"]]["data"])
                if "secretRef" in source:
                    secret = secrets[source["secretRef"]["name"]]
                    names.update({**secret.get("data", {}), **secret.get("stringData", {})})
    return names


def test_manifests_use_only_the_documented_environment() -> None:
    names = manifest_env_names()
    assert names, "no environment found"
    assert names <= ALLOWED_ENV, sorted(names - ALLOWED_ENV)
    # The app's ConfigMap and Secret hold nothing but documented variables either.
    assert set(only("ConfigMap", "fivehundred-config")["data"]) <= ALLOWED_ENV
    assert set(only("Secret", "fivehundred-secrets")["stringData"]) <= ALLOWED_ENV
    # And together they cover every variable.
    container_names = {item["name"] for item in api_container()["env"]}
    assert container_names | set(only("ConfigMap", "fivehundred-config")["data"]) == ALLOWED_ENV


def test_redis_statefulset_persists_and_runs_unprivileged() -> None:
    statefulset = only("StatefulSet", "fivehundred-redis")
    args = statefulset["spec"]["template"]["spec"]["containers"][0]["command"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert statefulset["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
    assert statefulset["spec"]["volumeClaimTemplates"]
    service = only("Service", "fivehundred-redis")
    pod_labels = statefulset["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    # The secret's REDIS_URL points at that Service.
    assert "@fivehundred-redis:6379" in only("Secret", "fivehundred-secrets")["stringData"]["REDIS_URL"]


# --- compose and nginx ------------------------------------------------------------------------------------


def compose() -> dict[str, Any]:
    docs = load_all(DEPLOY / "compose.yaml")
    assert len(docs) == 1
    return docs[0]


def test_compose_has_redis_and_replicated_api_behind_a_load_balancer() -> None:
    services = compose()["services"]
    assert "redis" in services
    assert "healthcheck" in services["redis"]
    api = services["api"]
    assert api["deploy"]["replicas"] >= 2
    assert api["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert api["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "healthcheck" in api
    assert api["build"]["dockerfile"] == "deploy/Dockerfile"
    assert "ports" not in api, "replicas are reached only through the load balancer"
    lb = services["lb"]
    assert lb["depends_on"]["api"]["condition"] == "service_healthy"
    assert any(volume.startswith("./nginx.conf:") for volume in lb["volumes"])
    assert lb["ports"]
    # SNAPSHOT_KEYS comes from the env file, not from the compose file.
    assert "SNAPSHOT_KEYS" not in api["environment"]
    env_files = [entry["path"] if isinstance(entry, dict) else entry for entry in api["env_file"]]
    assert env_files == ["./secrets.env"]
    example = (DEPLOY / "secrets.env.example").read_text()
    example_names = {
        line.split("=", 1)[0] for line in example.splitlines() if "=" in line and not line.startswith("#")
    }
    assert "SNAPSHOT_KEYS" in example_names
    assert (set(api["environment"]) | example_names) <= ALLOWED_ENV
    # Same start command as the image, plus proxy-header trust (nginx is the only way in).
    command = " ".join(api["command"])
    assert command.startswith(UVICORN_COMMAND)
    assert "--proxy-headers" in command


def test_nginx_proxies_to_the_api_with_sse_friendly_settings() -> None:
    conf = re.sub(r"#[^\n]*", "", (DEPLOY / "nginx.conf").read_text())
    upstreams = dict(re.findall(r"upstream\s+(\w+)\s*\{([^}]*)\}", conf))
    assert upstreams, "no upstream block"
    (name, body), *_ = upstreams.items()
    assert re.search(r"\bserver\s+api:8000\b", body), "upstream must point at the compose api service"
    assert re.search(r"\bkeepalive\s+\d+;", body)
    assert f"proxy_pass http://{name};" in conf
    for setting in (
        "proxy_buffering off;",
        "proxy_http_version 1.1;",
        'proxy_set_header Connection "";',
        "proxy_read_timeout 1h;",
    ):
        assert setting in conf, setting
    assert conf.count("{") == conf.count("}")
    listen = re.findall(r"listen\s+(\d+);", conf)
    published = [int(p.split(":")[-1]) for p in compose()["services"]["lb"]["ports"]]
    assert [int(p) for p in listen] == published


# --- Dockerfile -------------------------------------------------------------------------------------------


def test_dockerfile_is_slim_non_root_with_healthcheck_and_the_readme_command() -> None:
    instructions = dockerfile_instructions()
    text = (DEPLOY / "Dockerfile").read_text()
    assert "python:3.11-slim" in text
    froms = [args for instruction, args in instructions if instruction == "FROM"]
    assert len(froms) >= 2, "multi-stage build expected"
    # pip installs the project from pyproject.toml.
    runs = " ".join(args for instruction, args in instructions if instruction == "RUN")
    assert re.search(r"pip install \.(\s|$)", runs)
    # ... at the versions of constraints.txt, and with every package the project installs.
    assert re.search(r"pip install \. -c constraints\.txt(\s|$)", runs)
    copies = [args for instruction, args in instructions if instruction == "COPY"]
    assert any("pyproject.toml" in args and "constraints.txt" in args for args in copies)
    for package in ("engine", "bots", "service"):
        assert any(args.split()[0] == package for args in copies), f"the image does not copy {package}/"
    # The last USER (the one the container runs as) is not root.
    users = [args for instruction, args in instructions if instruction == "USER"]
    assert users, "no USER instruction"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")
    # HEALTHCHECK on /healthz with the standard library (no curl in slim).
    healthchecks = [args for instruction, args in instructions if instruction == "HEALTHCHECK"]
    assert len(healthchecks) == 1
    assert "/healthz" in healthchecks[0] and "urllib" in healthchecks[0]
    assert "curl" not in healthchecks[0]
    # CMD runs the same command as the README's "uvicorn --factory service.app:create_app".
    cmds = [args for instruction, args in instructions if instruction == "CMD"]
    assert len(cmds) == 1
    argv = exec_form(cmds[0])
    assert " ".join(argv).startswith(UVICORN_COMMAND)
    assert argv[argv.index("--host") + 1] == "0.0.0.0"


def test_dockerignore_keeps_the_context_small() -> None:
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    assert ignore and "*" in ignore
    assert {"!pyproject.toml", "!constraints.txt", "!engine/", "!bots/", "!service/"} <= set(ignore)


def test_pip_install_dot_would_ship_every_package() -> None:
    """The image runs ``pip install .``: the project's setuptools config must include every subpackage.

    An explicit ``packages = [...]`` list installs only the packages it names (``service`` without
    ``service.ops``, ``service.sessions``, ...); ``[tool.setuptools.packages.find]`` finds them all.
    """
    import tomllib

    from setuptools import find_packages

    root = DEPLOY.parent
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    include = config["packages"]["find"]["include"]
    installed = set(find_packages(where=str(root), include=include))
    on_disk = sorted(
        ".".join(init.parent.relative_to(root).parts)
        for top in ("engine", "bots", "service")
        for init in (root / top).rglob("__init__.py")
    )
    missing = [name for name in on_disk if name not in installed]
    assert "service.ops" in on_disk
    assert not missing, f"pip install . would not install {missing}"


def test_only_the_front_proxy_is_trusted_with_forwarded_addresses() -> None:
    """Compose: the replicas believe X-Forwarded-For from nginx's fixed address only; Kubernetes: from the
    networks the ConfigMap names, never from anyone (``*``)."""
    import ipaddress

    doc = compose()
    api, lb = doc["services"]["api"], doc["services"]["lb"]
    assert not any("forwarded-allow-ips" in arg for arg in api["command"])  # the variable decides
    trusted = api["environment"]["FORWARDED_ALLOW_IPS"]
    nginx = lb["networks"]["default"]["ipv4_address"]
    assert trusted == nginx
    subnet = ipaddress.ip_network(doc["networks"]["default"]["ipam"]["config"][0]["subnet"])
    assert ipaddress.ip_address(nginx) in subnet
    configured = only("ConfigMap", "fivehundred-config")["data"]["FORWARDED_ALLOW_IPS"]
    assert "*" not in configured
    for entry in configured.split(","):
        ipaddress.ip_network(entry.strip())  # addresses or networks, each valid
    image = exec_form(next(args for instruction, args in dockerfile_instructions() if instruction == "CMD"))
    assert "--proxy-headers" in image and not any("forwarded-allow-ips" in arg for arg in image)


def test_the_autoscaler_scales_on_cpu_streams_and_waiting_searches_the_service_exports() -> None:
    hpa = only("HorizontalPodAutoscaler", "fivehundred-api")
    metrics = hpa["spec"]["metrics"]
    assert {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                     "averageUtilization": 70}}} in metrics
    pods = {m["pods"]["metric"]["name"]: m["pods"]["target"] for m in metrics if m["type"] == "Pods"}
    assert set(pods) == {"event_streams_open", "search_queue_depth"}
    assert all(target["type"] == "AverageValue" and float(target["averageValue"]) > 0 for target in pods.values())
    # Each is a metric the service exports, and the adapter's rules serve each of them per pod.
    source = "\n".join(p.read_text() for p in (DEPLOY.parent / "service").rglob("*.py"))
    adapter = yaml.safe_load(only("ConfigMap", "adapter-config")["data"]["config.yaml"])
    served = {rule["name"]["as"]: rule for rule in adapter["rules"]}
    for name in pods:
        assert f'"{name}"' in source, name
        assert served[name]["seriesQuery"].startswith(name + "{")
        assert served[name]["resources"]["overrides"]["pod"] == {"resource": "pod"}


def test_the_redis_cluster_example_has_three_primaries_with_a_replica_each() -> None:
    statefulset = only("StatefulSet", "fivehundred-redis-cluster")
    assert statefulset["spec"]["replicas"] == 6
    command = " ".join(statefulset["spec"]["template"]["spec"]["containers"][0]["command"])
    for setting in ("--cluster-enabled yes", "--cluster-node-timeout", "--maxmemory-policy noeviction",
                    "--cluster-announce-hostname", "--appendonly yes"):
        assert setting in command, setting
    job = " ".join(only("Job", "fivehundred-redis-cluster-create")["spec"]["template"]["spec"]["containers"][0]
                   ["command"])
    assert "--cluster-replicas 1" in job and "for i in 0 1 2 3 4 5" in job
    service = only("Service", "fivehundred-redis-cluster")
    assert {p["port"] for p in service["spec"]["ports"]} == {6379, 16379}
    assert only("ConfigMap", "fivehundred-config")["data"]["REDIS_SHARDED_PUBSUB"] == "true"
