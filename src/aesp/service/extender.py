"""A kube-scheduler extender (``k8s.io/kube-scheduler/extender/v1``) over the decision core.

Wire format: the Go types have no JSON tags, so keys are the PascalCase field names (``Pod``,
``Nodes``, ``NodeNames``, ``FailedNodes``, ``FailedAndUnresolvableNodes``, ``Error``, ``Host``,
``Score`` ...) and Go decodes them case-insensitively; so does :func:`aesp.service.kube.field`.
Results are encoded with every field present, in the Go struct's order, ``null`` for nil.

Verbs:
- ``filter``: the profile's prefilters (unresolvable -> ``FailedAndUnresolvableNodes``) and
  filters (the first filter a node fails names the reason in ``FailedNodes``).
- ``prioritize``: the framework's weighted score over the feasible nodes, mapped to 0-10 by
  :func:`extender_priority`, the only place that conversion happens.
- ``bind``: a ``v1.Binding`` through the official Kubernetes client; the binding is recorded so
  later snapshots count the pod's requests.
- ``preempt``: AESP does not veto victims; it returns the proposed victims by UID.

With ``nodeCacheCapable: true`` kube-scheduler sends only ``NodeNames``, resolved against the
control plane's node registry (nodes registered by agents, the config file, or node objects seen
in earlier calls); otherwise full ``Nodes`` objects, which also refresh that registry.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from aesp.core import Request, Task
from aesp.core.resources import FloatArray, IntArray
from aesp.placement import MAX_NODE_SCORE, CycleState
from aesp.placement.framework.runtime import Framework
from aesp.service.kube import (
    KubeMapping,
    KubeNode,
    KubeObjectError,
    field,
    name_of,
    node_from_kube,
    pod_to_task,
)
from aesp.service.registry import BindingRecord, DecisionRecord, RegisteredNode
from aesp.service.settings import ExtenderSettings
from aesp.service.state import ControlPlane

MAX_EXTENDER_PRIORITY = 10
"""``extenderv1.MaxExtenderPriority``."""
_POD_CACHE = 4096
_NODE_VERSION_CACHE = 100_000


def extender_priority(weighted: FloatArray, total_weight: float) -> IntArray:
    """Weighted framework scores to extender priorities.

    ``priority = round(weighted / total_weight / MAX_NODE_SCORE * 10)``: the weighted sum is
    normalised back to ``[0, 100]`` by the sum of the weights, then scaled to kube's 0-10.
    E.g. weights (1, 1), scores (80, 60): 140 / 2 = 70 -> 7.

    Shapes: weighted ``(K,)`` -> ``(K,)``.
    """
    if total_weight <= 0:
        return np.zeros(len(weighted), np.int64)
    unit = np.clip(weighted / total_weight / MAX_NODE_SCORE, 0.0, 1.0)
    return np.rint(unit * MAX_EXTENDER_PRIORITY).astype(np.int64)


class ExtenderRequestError(ValueError):
    """A request body that is not a valid extender payload."""


@dataclass(frozen=True)
class ExtenderArgs:
    """``ExtenderArgs``: the pod and either full node objects or node names."""

    pod: Mapping[str, Any]
    nodes: list[Mapping[str, Any]] | None
    node_names: list[str] | None
    node_list: Mapping[str, Any] | None

    @classmethod
    def parse(cls, payload: Any) -> ExtenderArgs:
        if not isinstance(payload, Mapping):
            raise ExtenderRequestError("ExtenderArgs must be a JSON object")
        pod = field(payload, "Pod")
        if not isinstance(pod, Mapping):
            raise ExtenderRequestError("ExtenderArgs.Pod is missing or not an object")
        node_list = field(payload, "Nodes")
        items = field(node_list, "items") if node_list is not None else None
        names = field(payload, "NodeNames")
        if items is None and names is None:
            raise ExtenderRequestError("ExtenderArgs needs Nodes or NodeNames")
        if items is not None and not isinstance(items, list):
            raise ExtenderRequestError("ExtenderArgs.Nodes.items must be a list")
        if names is not None and not (
            isinstance(names, list) and all(isinstance(n, str) for n in names)
        ):
            raise ExtenderRequestError("ExtenderArgs.NodeNames must be a list of strings")
        return cls(pod, items, names, node_list)


def filter_result(
    nodes: Mapping[str, Any] | None = None,
    node_names: list[str] | None = None,
    failed: Mapping[str, str] | None = None,
    unresolvable: Mapping[str, str] | None = None,
    error: str = "",
) -> dict[str, Any]:
    """``ExtenderFilterResult`` as Go encodes it (all fields, struct order, nil as null)."""
    return {
        "Nodes": nodes,
        "NodeNames": node_names,
        "FailedNodes": dict(failed) if failed is not None else None,
        "FailedAndUnresolvableNodes": dict(unresolvable) if unresolvable is not None else None,
        "Error": error,
    }


def host_priority(host: str, score: int) -> dict[str, Any]:
    """``HostPriority``."""
    return {"Host": host, "Score": int(score)}


class Binder(Protocol):
    """Creates a pod's ``v1.Binding`` (the Kubernetes API, or a fake in tests)."""

    def bind(self, namespace: str, name: str, uid: str, node: str) -> None: ...


class KubeBinder:
    """Binds through ``CoreV1Api.create_namespaced_binding`` of the official client.

    The client configuration is loaded on first use, in-cluster or from a kubeconfig.
    """

    def __init__(self, in_cluster: bool = True, kubeconfig: str | None = None) -> None:
        self.in_cluster, self.kubeconfig = in_cluster, kubeconfig
        self._api: Any = None

    def _core(self) -> Any:
        if self._api is None:
            from kubernetes import client, config

            if self.in_cluster:
                config.load_incluster_config()  # type: ignore[no-untyped-call]
            else:
                config.load_kube_config(config_file=self.kubeconfig)  # type: ignore[no-untyped-call]
            self._api = client.CoreV1Api()
        return self._api

    def bind(self, namespace: str, name: str, uid: str, node: str) -> None:
        self.bind_with(self._core(), namespace, name, uid, node)

    @staticmethod
    def bind_with(api: Any, namespace: str, name: str, uid: str, node: str) -> None:
        """Create the binding with ``api`` (a ``CoreV1Api`` or a fake with the same method)."""
        from kubernetes import client

        body = client.V1Binding(
            metadata=client.V1ObjectMeta(name=name, namespace=namespace, uid=uid or None),
            target=client.V1ObjectReference(api_version="v1", kind="Node", name=node),
        )
        api.create_namespaced_binding(namespace, body, _preload_content=False)


@dataclass
class _Candidates:
    """Candidate nodes resolved to registered names; the rest failed with a reason."""

    names: list[str]
    objects: dict[str, Mapping[str, Any]]
    failed: dict[str, str]


class Extender:
    """The extender verbs over a :class:`ControlPlane` (see module doc)."""

    def __init__(
        self,
        plane: ControlPlane,
        settings: ExtenderSettings,
        binder: Binder | None = None,
        on_verb: Callable[[str, str], None] | None = None,
    ) -> None:
        self.plane, self.settings = plane, settings
        self.mapping = KubeMapping(settings.gpu_resource, settings.gpu_model_label)
        self.binder: Binder = binder or KubeBinder(settings.in_cluster, settings.kubeconfig)
        self._seen: dict[str, KubeNode] = {}
        self._versions: dict[str, tuple[str, KubeNode]] = {}
        self._pods: OrderedDict[str, Request] = OrderedDict()
        self._on_verb = on_verb or (lambda verb, outcome: None)

    @property
    def framework(self) -> Framework:
        return self.plane.scheduler(self.settings.profile or None).framework

    # ----------------------------------------------------------------- helpers

    def _task(self, args: ExtenderArgs) -> Task:
        task = pod_to_task(args.pod, self.mapping)
        uid = str(field(field(args.pod, "metadata"), "uid") or "")
        self._pods[uid or task.name] = task.request
        self._pods[task.name] = task.request
        while len(self._pods) > _POD_CACHE:
            self._pods.popitem(last=False)
        return task

    def _convert(self, name: str, obj: Mapping[str, Any]) -> KubeNode:
        """``node_from_kube``, memoised by ``metadata.resourceVersion``: the API server changes
        it on every write, so an unchanged version is an unchanged object (objects without one
        are converted every time)."""
        version = field(field(obj, "metadata"), "resourceVersion")
        if version:
            hit = self._versions.get(name)
            if hit is not None and hit[0] == version:
                return hit[1]
        kn = node_from_kube(obj, self.mapping)
        if version:
            if len(self._versions) >= _NODE_VERSION_CACHE:
                self._versions.clear()
            self._versions[name] = (str(version), kn)
        return kn

    def _resolve(self, args: ExtenderArgs) -> _Candidates:
        known = self.plane.registry.nodes()
        if args.nodes is None:
            names = args.node_names or []
            failed = {n: "node unknown to the AESP node cache" for n in names if n not in known}
            return _Candidates([n for n in names if n in known], {}, failed)
        out = _Candidates([], {}, {})
        fresh: list[KubeNode] = []
        for obj in args.nodes:
            name = name_of(obj)
            try:
                kn = self._convert(name, obj)
            except KubeObjectError as exc:
                out.failed[name or "?"] = str(exc)
                continue
            prev = self._seen.get(name)
            if (prev is not kn and prev != kn) or name not in known:
                fresh.append(kn)
                self._seen[name] = kn
            out.names.append(name)
            out.objects[name] = obj
        if fresh:
            now = self.plane.clock()
            self.plane.register(
                [RegisteredNode(k.node, k.ready, "kubernetes", now) for k in fresh],
                list({k.site.name: k.site for k in fresh}.values()),
            )
        return out

    def _evaluate(self, task: Task, names: Sequence[str]) -> tuple[CycleState, str, list[str]]:
        """Working state, the unresolvable reason (empty if none), per-node failure reasons."""
        snap = self.plane.snapshot(names)
        fw = self.framework
        state = CycleState(snap, self.plane.scheduler(self.settings.profile or None).rng)
        status = fw.prefilter(snap, task)
        if not status.ok:
            reason = f"{status.plugin}: {'; '.join(status.reasons)}".strip(": ")
            return state, reason, [reason] * len(names)
        mask, _ = fw.feasible(state, task)
        reasons = [""] * len(names)
        for plugin in fw.filters:  # the first filter each rejected node fails names the reason
            for i in np.flatnonzero(~plugin.filter(state, task) & ~mask):
                reasons[i] = reasons[i] or plugin.NAME
        return state, "", reasons

    # ----------------------------------------------------------------- verbs

    def filter(self, payload: Any) -> dict[str, Any]:
        try:
            args = ExtenderArgs.parse(payload)
            task = self._task(args)
        except (ExtenderRequestError, KubeObjectError, ValueError) as exc:
            self._on_verb("filter", "error")
            return filter_result(error=str(exc))
        cand = self._resolve(args)
        failed, unresolvable, passed = dict(cand.failed), {}, []
        if cand.names:
            _, unres, reasons = self._evaluate(task, cand.names)
            for name, reason in zip(cand.names, reasons, strict=True):
                if unres:
                    unresolvable[name] = unres
                elif reason:
                    failed[name] = f"AESP {reason}"
                else:
                    passed.append(name)
        if not passed:
            self._log(task.name, None, "unschedulable", "; ".join(sorted(set(failed.values()))))
        self._on_verb("filter", "ok")
        if args.nodes is not None:
            items = [cand.objects[n] for n in passed]
            node_list = {**(args.node_list or {}), "items": items}
            return filter_result(nodes=node_list, failed=failed, unresolvable=unresolvable)
        return filter_result(node_names=passed, failed=failed, unresolvable=unresolvable)

    def prioritize(self, payload: Any) -> list[dict[str, Any]]:
        """``HostPriorityList``; nodes that are infeasible or unknown score 0.

        Raises:
            ExtenderRequestError, KubeObjectError: a malformed payload.
        """
        args = ExtenderArgs.parse(payload)
        task = self._task(args)
        cand = self._resolve(args)
        order = [name_of(o) for o in args.nodes] if args.nodes is not None else args.node_names
        scores = dict.fromkeys(order or [], 0)
        if cand.names:
            state, unres, reasons = self._evaluate(task, cand.names)
            feasible = np.array([not r for r in reasons]) if not unres else np.zeros(0, bool)
            idx = np.flatnonzero(feasible)
            if len(idx):
                fw = self.framework
                prio = extender_priority(fw.score(state, task, idx), float(fw.weights.sum()))
                scores.update({cand.names[i]: int(p) for i, p in zip(idx, prio, strict=True)})
        self._on_verb("prioritize", "ok")
        return [host_priority(h, s) for h, s in scores.items()]

    def bind(self, payload: Any) -> dict[str, Any]:
        """``ExtenderBindingResult``: bind through the binder, then record the binding."""
        args = binding_args(payload)
        if isinstance(args, str):
            return self.finish_bind(None, args)
        return self.finish_bind(args, self.call_binder(args))

    def call_binder(self, args: BindingArgs) -> str:
        """Create the binding; the error message, or empty on success (no database access,
        so it may run in a worker thread)."""
        try:
            self.binder.bind(args.namespace, args.pod, args.uid, args.node)
        except Exception as exc:  # any API failure goes back to kube-scheduler as Error
            return f"binding {args.key} to {args.node} failed: {exc}"
        return ""

    def finish_bind(self, args: BindingArgs | None, error: str) -> dict[str, Any]:
        """Record a successful binding (its request from the pod seen in filter/prioritize)."""
        if args is None or error:
            self._on_verb("bind", "error")
            if args is not None:
                self._log(args.key, args.node, "bind_failed", error[:500])
            return {"Error": error}
        request = self._pods.get(args.uid) or self._pods.get(args.key) or Request(0.0, 0.0)
        now = self.plane.clock()
        rebound = self.plane.registry.release(args.key)
        record = BindingRecord(args.key, args.node, request, tuple(range(request.gpu_count)),
                               now, "extender")
        decision = DecisionRecord(now, "extender", args.key, args.node, "bound",
                                  "rebound" if rebound else "")
        self.plane.registry.add_bindings([record], [decision])
        self._on_verb("bind", "ok")
        return {"Error": ""}

    def preempt(self, payload: Any) -> dict[str, Any]:
        """``ExtenderPreemptionResult``: the proposed victims, by UID, unchanged."""
        meta = field(payload, "NodeNameToMetaVictims")
        if isinstance(meta, Mapping) and meta:
            out = {
                str(n): {"Pods": [{"UID": str(field(p, "UID") or "")} for p in field(v, "Pods") or []],
                         "NumPDBViolations": int(field(v, "NumPDBViolations") or 0)}
                for n, v in meta.items()
            }
        else:
            victims = field(payload, "NodeNameToVictims") or {}
            out = {
                str(n): {"Pods": [{"UID": str(field(field(p, "metadata"), "uid") or "")}
                                  for p in field(v, "Pods") or []],
                         "NumPDBViolations": int(field(v, "NumPDBViolations") or 0)}
                for n, v in victims.items()
            }
        self._on_verb("preempt", "ok")
        return {"NodeNameToMetaVictims": out}

    def _log(self, task: str, node: str | None, outcome: str, reason: str) -> None:
        self.plane.registry.log_decisions(
            [DecisionRecord(self.plane.clock(), "extender", task, node, outcome, reason)]
        )


@dataclass(frozen=True)
class BindingArgs:
    """``ExtenderBindingArgs``."""

    pod: str
    namespace: str
    uid: str
    node: str

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.pod}"


def binding_args(payload: Any) -> BindingArgs | str:
    """Parse ``ExtenderBindingArgs``; an error message when PodName or Node is missing."""
    args = BindingArgs(
        pod=str(field(payload, "PodName") or ""),
        namespace=str(field(payload, "PodNamespace") or "default"),
        uid=str(field(payload, "PodUID") or ""),
        node=str(field(payload, "Node") or ""),
    )
    if not args.pod or not args.node:
        return "ExtenderBindingArgs needs PodName and Node"
    return args


__all__ = [
    "MAX_EXTENDER_PRIORITY",
    "Binder",
    "BindingArgs",
    "Extender",
    "ExtenderArgs",
    "ExtenderRequestError",
    "KubeBinder",
    "binding_args",
    "extender_priority",
    "filter_result",
    "host_priority",
]
