#!/usr/bin/env python3
"""Checks the container and Kubernetes files as far as a machine without Docker
or a cluster can: every manifest passes `kubernetes-validate --strict` (the
Kubernetes API's own schemas: an unknown or misspelt field fails), the fields
the sharded job relies on are there and agree with each other (the sharded job
and its podFailurePolicy, the merge step, the origin Deployment and its
Service, the image tag and WarmVersion); the Dockerfile is multi-stage, runs as
a non-root user, and its runtime packages exist in Debian (apt-cache show).

Usage: scripts/check-deploy.py [--no-apt]   (exit 0: fine; 1: each problem printed)
Needs python3-yaml and the pip package kubernetes-validate (scripts/bootstrap.sh installs both).
"""
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
problems = []


def check(condition, message):
    if not condition:
        problems.append(message)
    return condition


def load(name):
    path = ROOT / "deploy" / "kubernetes" / name
    documents = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    check(len(documents) == 1, f"{name}: expected one document, found {len(documents)}")
    return documents[0]


def pod_spec(cronjob):
    return cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]


def flag(args, name):
    """The value of --name=value or --name value in a container's args."""
    for index, arg in enumerate(args):
        text = arg.split("#")[0].strip()
        if text.startswith(f"--{name}="):
            return text.split("=", 1)[1]
        if text == f"--{name}" and index + 1 < len(args):
            return args[index + 1]
    return None


def volume_claims(spec):
    return {v["name"]: v["persistentVolumeClaim"]["claimName"]
            for v in spec.get("volumes", []) if "persistentVolumeClaim" in v}


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

manifests = sorted(str(p) for p in (ROOT / "deploy" / "kubernetes").glob("*.yaml"))
try:
    validation = subprocess.run([sys.executable, "-m", "kubernetes_validate", "--strict", "--quiet", *manifests],
                                capture_output=True, text=True)
    check(validation.returncode == 0, "kubernetes-validate --strict: " + (validation.stdout + validation.stderr).strip())
except OSError as error:
    check(False, f"kubernetes-validate could not run ({error}); scripts/bootstrap.sh installs it")


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
# /healthz is 503 until a run has made the manifest: right for readiness, a restart loop for liveness.
for probe, path in (("readinessProbe", "/healthz"), ("livenessProbe", "/metrics")):
    get = origin_container.get(probe, {}).get("httpGet", {})
    check(get.get("path") == path and (get.get("port") in ports or get.get("port") in ports.values()),
          f"deployment-origin.yaml: the {probe} must GET {path} on a container port")
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

for problem in problems:
    print(f"check-deploy: {problem}")
if problems:
    sys.exit(1)
print(f"check-deploy: ok ({completions} shards, {parallelism} at once, origin {origin['spec'].get('replicas', 1)} replicas, runtime packages {', '.join(packages)})")
