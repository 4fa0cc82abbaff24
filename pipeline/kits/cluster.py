"""The Kubernetes API, for the few calls the operator and the scoring pod make:
create a Job, merge-patch a custom resource's status, read that status fresh. The only
module that imports ``kubernetes`` (kopf keeps its own client for watching).

Manifests go over the wire as plain dicts (no typed models): what planning produced
is exactly what the API server receives. This kit must not decide anything.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import kubernetes
import urllib3.exceptions

from iwcbench.pipeline.kits import retrying

log = logging.getLogger(__name__)


class ApiError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        message = body.get("message") if isinstance(body, dict) else body
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.body = body


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, ApiError):
        return exc.status == 429 or exc.status >= 500
    return isinstance(exc, (urllib3.exceptions.HTTPError, ConnectionError, TimeoutError))


RETRY = retrying.Policy(attempts=5, initial_wait_s=0.2, max_wait_s=5.0)
_retry = retrying.retry(RETRY, _transient, what="Kubernetes API request")


class Cluster:
    """One API server connection (in-cluster service account, or a kubeconfig)."""

    def __init__(self, api_client: kubernetes.client.ApiClient) -> None:
        self._api = api_client

    @_retry
    def _request(self, method: str, path: str, body: Any = None,
                 content_type: str = "application/json") -> tuple[int, Any]:
        params = self._api.param_serialize(
            method=method, resource_path=path,
            header_params={"Content-Type": content_type, "Accept": "application/json"},
            body=body, auth_settings=["BearerToken"],
        )
        response = self._api.call_api(*params, _request_timeout=(10, 60))
        response.read()
        try:
            data: Any = json.loads(response.data) if response.data else {}
        except ValueError:  # a plain-text body: "The apiserver is shutting down" (429), a proxy's page
            data = bytes(response.data or b"").decode("utf-8", "replace")[:300]
        if response.status >= 400 and response.status != 409:
            raise ApiError(response.status, data)
        return response.status, data

    def create_job(self, manifest: dict[str, Any]) -> bool:
        """Create a Job; False when one with that name exists already (not an error:
        names are deterministic, so it is the same Job)."""
        return self.create("batch", "v1", "jobs", manifest["metadata"]["namespace"], manifest) is not None

    def get_status(self, group: str, version: str, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        """A custom resource's ``status`` as the API server has it now (not a watch's
        view, which can lag behind another writer); None when the resource is gone."""
        path = f"/apis/{group}/{version}/namespaces/{namespace}/{plural}/{name}/status"
        try:
            _, data = self._request("GET", path)
        except ApiError as exc:
            if exc.status == 404:
                return None
            raise
        return dict(data.get("status") or {})

    def get(self, group: str, version: str, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        """A custom resource as the API server has it now; None when it is gone."""
        try:
            _, data = self._request("GET", f"/apis/{group}/{version}/namespaces/{namespace}/{plural}/{name}")
        except ApiError as exc:
            if exc.status == 404:
                return None
            raise
        return data

    def create(self, group: str, version: str, plural: str, namespace: str, body: dict[str, Any]) -> dict[str, Any] | None:
        """Create a namespaced resource of an API group; None when one of that name exists."""
        status, data = self._request("POST", f"/apis/{group}/{version}/namespaces/{namespace}/{plural}", body)
        return None if status == 409 else data

    def patch_status(self, group: str, version: str, plural: str, namespace: str, name: str,
                     patch: dict[str, Any]) -> dict[str, Any]:
        """Merge-patch ``status`` of a custom resource via its status subresource."""
        path = f"/apis/{group}/{version}/namespaces/{namespace}/{plural}/{name}/status"
        _, data = self._request("PATCH", path, {"status": patch}, "application/merge-patch+json")
        return data


def _kubeconfig() -> str | None:
    """KUBECONFIG as it is now (the client reads it once, when it is imported)."""
    return os.environ.get("KUBECONFIG") or None


SERVICE_ACCOUNT_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"


def default_namespace() -> str:
    """The namespace a kubectl user means by none: the kubeconfig's current context's
    (KUBECONFIG or ~/.kube/config); in a pod, the pod's own; else ``default``."""
    try:
        _contexts, current = kubernetes.config.list_kube_config_contexts(config_file=_kubeconfig())
        return str((current or {}).get("context", {}).get("namespace") or "default")
    except (kubernetes.config.ConfigException, OSError):
        pass
    try:
        with open(SERVICE_ACCOUNT_NAMESPACE, encoding="utf-8") as f:
            return f.read().strip() or "default"
    except OSError:
        return "default"


def connect() -> Cluster:
    """The pod's service account when running in a cluster, else the kubeconfig
    (KUBECONFIG or ~/.kube/config)."""
    configuration = kubernetes.client.Configuration()
    try:
        kubernetes.config.load_incluster_config(client_configuration=configuration)
    except kubernetes.config.ConfigException:
        kubernetes.config.load_kube_config(config_file=_kubeconfig(), client_configuration=configuration)
    return Cluster(kubernetes.client.ApiClient(configuration))
