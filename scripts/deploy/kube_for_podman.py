"""Turns deploy/kubernetes/ into what `podman kube play` (4.3) runs, for
scripts/deploy/check-image, changing only what podman lacks or this machine
cannot reach:

- A StatefulSet becomes its Pod, its volume claim template a claim of its own;
  a Deployment becomes one Pod per replica (podman plays one). NATS's
  StatefulSet becomes one NATS server, without routes to the others.
- Secrets are put into the environment they feed, and a Service's name in
  TAILOR_DB and TAILOR_BUS becomes the address of the pod behind it (podman
  has no Services).
- Registry images become the ones built here; HTTP probes are left out
  (podman runs them with curl inside the container, and the image has none:
  the check asks /readyz from outside instead); each server's port is
  published on the host.

  kube_for_podman.py FOLDER OUT_FOLDER --tailor-image I --postgres-image I
                     --postgres-address IP --nats-image I --nats-address IP --ports P,P
"""
import argparse
import copy
import pathlib
import yaml

parser = argparse.ArgumentParser()
parser.add_argument("folder")
parser.add_argument("out")
parser.add_argument("--tailor-image", required=True)
parser.add_argument("--postgres-image", required=True)
parser.add_argument("--postgres-address", required=True)
parser.add_argument("--nats-image", required=True)
parser.add_argument("--nats-address", required=True)
parser.add_argument("--ports", required=True)
options = parser.parse_args()

documents = [d for f in sorted(pathlib.Path(options.folder).glob("*.yaml")) for d in yaml.safe_load_all(f.read_text()) if d]
secrets = {d["metadata"]["name"]: d.get("stringData", {}) for d in documents if d["kind"] == "Secret"}
ports = [int(p) for p in options.ports.split(",")]


def resolved(container):
    for variable in container.get("env", []):
        reference = variable.get("valueFrom", {}).get("secretKeyRef")
        if reference:
            value = secrets[reference["name"]][reference["key"]]
            if variable["name"] == "TAILOR_DB":
                value = value.replace("@postgres:", f"@{options.postgres_address}:")
            variable.pop("valueFrom")
            variable["value"] = value
        if variable["name"] == "TAILOR_BUS":
            variable["value"] = f"nats://{options.nats_address}:4222"
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        if "httpGet" in container.get(probe, {}):
            container.pop(probe)
    return container


def pod(name, template):
    spec = copy.deepcopy(template["spec"])
    spec["containers"] = [resolved(c) for c in spec["containers"]]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": template["metadata"].get("labels", {})}, "spec": spec}


postgres, nats, tailor = [], [], []
for document in documents:
    if document["kind"] == "StatefulSet" and document["metadata"]["name"] == "nats":
        result = pod("nats", document["spec"]["template"])
        for container in result["spec"]["containers"]:
            container["image"] = options.nats_image
            container["args"] = [a for a in container.get("args", []) if not a.startswith("--routes=")]
        nats.append(result)
    elif document["kind"] == "StatefulSet":
        name = document["metadata"]["name"]
        result = pod(name, document["spec"]["template"])
        for claim in document["spec"].get("volumeClaimTemplates", []):
            claim_name = f"{name}-{claim['metadata']['name']}"
            postgres.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim_name}, "spec": claim["spec"]})
            result["spec"].setdefault("volumes", []).append({"name": claim["metadata"]["name"], "persistentVolumeClaim": {"claimName": claim_name}})
        for container in result["spec"]["containers"]:
            container["image"] = options.postgres_image
        postgres.append(result)
    elif document["kind"] == "Deployment":
        name = document["metadata"]["name"]
        replicas = document["spec"].get("replicas", 1)
        if replicas != len(ports):
            raise SystemExit(f"{name} has {replicas} replicas; {len(ports)} ports were given")
        for index, port in enumerate(ports):
            result = pod(f"{name}-{index}", document["spec"]["template"])
            for container in result["spec"]["containers"]:
                container["image"] = options.tailor_image
                for published in container.get("ports", []):
                    published["hostPort"] = port
                    published["hostIP"] = "127.0.0.1"
            tailor.append(result)

out = pathlib.Path(options.out)
(out / "postgres.yaml").write_text(yaml.safe_dump_all(postgres))
(out / "nats.yaml").write_text(yaml.safe_dump_all(nats))
(out / "tailor.yaml").write_text(yaml.safe_dump_all(tailor))
