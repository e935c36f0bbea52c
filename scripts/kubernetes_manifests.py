"""Reading the manifests in deploy/kubernetes/: shared by scripts/check-deploy.py (which checks them) and
scripts/rehearse.py (which runs their commands on one machine)."""
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
MANIFESTS = ROOT / "deploy" / "kubernetes"


def documents(path):
    """The YAML documents of one manifest file, empty ones dropped."""
    return [d for d in yaml.safe_load_all(Path(path).read_text()) if d is not None]


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
