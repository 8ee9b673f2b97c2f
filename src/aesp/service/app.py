"""The control plane's HTTP API (FastAPI): ingest, cluster view, schedule, extender, metrics.

``create_app(settings)`` is the composition root; the state (:class:`ControlPlane`) is opened in
the app's lifespan, and every endpoint that touches it is ``async`` so SQLite is used from the
event loop's thread only. The Kubernetes binding call, the only slow external call, runs in a
worker thread.
"""

from __future__ import annotations

import hmac
import json
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import asdict
from importlib import resources
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from pydantic import ValidationError

from aesp.core import Node
from aesp.placement import ProfileError
from aesp.service import extender as ext
from aesp.service.promql import PrometheusSource, PromQLClient
from aesp.service.registry import RegisteredNode
from aesp.service.schemas import (
    BindingOut,
    IngestResult,
    NodeRegistration,
    ReportBatch,
    ScheduleRequest,
    ScheduleResponse,
    UnscheduledOut,
)
from aesp.service.settings import ServiceSettings
from aesp.service.state import ControlPlane, MetricsSource, site_from_settings
from aesp.service.views import node_views, site_views

STATIC = resources.files("aesp.service") / "static"
_MALFORMED = (ValueError, TypeError, AttributeError, KeyError)
_STATIC_TYPES = {"index.html": "text/html; charset=utf-8", "dashboard.js": "text/javascript"}


class Metrics:
    """The service's own Prometheus registry (never the process-global default)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.reports = Counter("aesp_reports_total", "Agent reports received", ["result"], registry=r)
        self.ingest = Counter("aesp_ingest_requests_total", "Ingest requests", ["code"], registry=r)
        self.tasks = Counter("aesp_schedule_tasks_total", "Tasks decided by /v1/schedule",
                             ["outcome"], registry=r)
        self.verbs = Counter("aesp_extender_requests_total", "Extender verb calls",
                             ["verb", "outcome"], registry=r)
        self.latency = Histogram("aesp_request_seconds", "Request handling time", ["route"],
                                 registry=r)


def _error(status: int, message: str) -> HTTPException:
    return HTTPException(status_code=status, detail=message)


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors()[:5]:
        loc = ".".join(str(p) for p in e["loc"]) or "body"
        parts.append(f"{loc}: {e['msg']}")
    more = f" (+{exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
    return "; ".join(parts) + more


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refusing (413) anything over ``limit`` bytes before reading it all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _error(413, f"payload of {declared} bytes exceeds the limit of {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise _error(413, f"payload exceeds the limit of {limit} bytes")
    return bytes(body)


def agent_of(request: Request, tokens: Mapping[str, str]) -> str:
    """The agent id whose bearer token the request carries (401 when none matches)."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise _error(401, "missing bearer token (Authorization: Bearer <agent token>)")
    found = ""
    for agent, expected in tokens.items():  # compare with every token: no early exit on match
        if hmac.compare_digest(token.encode(), expected.encode()):
            found = agent
    if not found:
        raise _error(401, "unknown agent token")
    return found


def create_app(
    settings: ServiceSettings,
    *,
    clock: Callable[[], float] = time.time,
    binder: ext.Binder | None = None,
    metrics_source: MetricsSource | None = None,
) -> FastAPI:
    """The FastAPI application; state opens on startup and closes on shutdown."""
    metrics = Metrics()
    if metrics_source is None and settings.metrics_source == "prometheus":
        metrics_source = PrometheusSource(PromQLClient(settings.prometheus_url))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        plane = ControlPlane(settings, clock=clock, metrics_source=metrics_source)
        app.state.plane = plane
        app.state.extender = ext.Extender(
            plane, settings.extender, binder,
            on_verb=lambda verb, outcome: metrics.verbs.labels(verb, outcome).inc(),
        )
        try:
            yield
        finally:
            plane.close()

    app = FastAPI(
        title="AESP control plane",
        version="1",
        description="Agent ingest, cluster view, scheduling and the kube-scheduler extender.",
        lifespan=lifespan,
    )
    app.state.metrics = metrics
    app.include_router(_core_routes(settings, metrics))
    app.include_router(_extender_routes(settings, metrics), prefix=settings.extender.url_prefix)
    return app


def _plane(request: Request) -> ControlPlane:
    plane: ControlPlane = request.app.state.plane
    return plane


def _core_routes(settings: ServiceSettings, metrics: Metrics) -> APIRouter:
    router = APIRouter()
    batch_schema = ReportBatch.model_json_schema(ref_template="#/components/schemas/{model}")

    @router.post(
        "/v1/reports", response_model=IngestResult, tags=["agents"],
        openapi_extra={"requestBody": {"required": True, "content": {
            "application/json": {"schema": batch_schema}}}},
    )
    async def ingest(request: Request) -> IngestResult:
        """Store a batch of agent reports: all or nothing, idempotent by report id."""
        try:
            agent = agent_of(request, settings.agent_tokens)
            body = await read_body(request, settings.max_body_bytes)
            try:
                batch = ReportBatch.model_validate_json(body)
            except ValidationError as exc:
                raise _error(422, f"invalid report batch: {_validation_message(exc)}") from None
            if len(batch.reports) > settings.max_batch:
                raise _error(413, f"batch of {len(batch.reports)} reports exceeds "
                                  f"max_batch={settings.max_batch}")
            foreign = sorted({r.agent_id for r in batch.reports} - {agent})
            if foreign:
                raise _error(403, f"token of agent {agent!r} cannot post reports of {foreign}")
            new = _plane(request).ingest(batch.reports)
        except HTTPException as exc:
            metrics.ingest.labels(str(exc.status_code)).inc()
            raise
        metrics.ingest.labels("200").inc()
        metrics.reports.labels("new").inc(new)
        metrics.reports.labels("duplicate").inc(len(batch.reports) - new)
        return IngestResult(accepted=new, duplicates=len(batch.reports) - new)

    @router.post("/v1/nodes", tags=["agents"])
    async def register_node(request: Request, body: NodeRegistration) -> dict[str, str]:
        """An agent registers (or updates) the node it runs on."""
        agent_of(request, settings.agent_tokens)
        try:
            node = Node(**body.node.model_dump())
        except ValueError as exc:
            raise _error(422, str(exc)) from None
        plane = _plane(request)
        site = [site_from_settings(**body.site.model_dump())] if body.site else []
        plane.register([RegisteredNode(node, True, "agent", plane.clock())], site)
        return {"node": node.name, "site": node.site}

    @router.get("/v1/nodes", tags=["cluster"])
    async def nodes(request: Request) -> list[dict[str, Any]]:
        """Registered nodes with capacity, allocation and latest usage."""
        return node_views(_plane(request))

    @router.get("/v1/sites", tags=["cluster"])
    async def sites(request: Request) -> list[dict[str, Any]]:
        """Sites and regions with node counts and utilisation."""
        plane = _plane(request)
        return site_views(plane, node_views(plane))

    @router.get("/v1/decisions", tags=["cluster"])
    async def decisions(request: Request, limit: int = Query(50, ge=1, le=1000)) -> list[dict[str, Any]]:
        """The most recent scheduling decisions, newest first."""
        return [asdict(d) for d in _plane(request).registry.recent_decisions(limit)]

    @router.get("/v1/reports", tags=["cluster"])
    async def reports(
        request: Request, node: str | None = None, since_s: float = 0.0,
        until_s: float = float("inf"), limit: int = Query(1000, ge=1, le=100_000),
    ) -> list[dict[str, Any]]:
        """Stored reports in ``[since_s, until_s)``, optionally for one node, oldest first."""
        found = _plane(request).store.query_reports(since_s, until_s, node)
        return [r.model_dump(exclude_none=True) for r in found[:limit]]

    @router.get("/v1/bindings", tags=["cluster"])
    async def bindings(request: Request) -> list[dict[str, Any]]:
        """Tasks the control plane bound and has not been told are gone."""
        return [
            {"task": b.task_key, "node": b.node, "gpus": list(b.gpus), "time_s": b.time_s,
             "source": b.source, "cpu_milli": b.request.cpu_milli, "mem_mib": b.request.mem_mib,
             "gpu_count": b.request.gpu_count, "gpu_milli": b.request.gpu_milli}
            for b in _plane(request).registry.bindings()
        ]

    @router.delete("/v1/bindings/{task:path}", tags=["cluster"])
    async def release(request: Request, task: str) -> dict[str, str]:
        """Release a finished task's resources."""
        if not _plane(request).registry.release(task):
            raise _error(404, f"no binding for task {task!r}")
        return {"released": task}

    @router.post("/v1/schedule", response_model=ScheduleResponse, tags=["scheduling"])
    async def schedule(request: Request, body: ScheduleRequest) -> ScheduleResponse:
        """Place pending tasks with the decision core (the simulator's ``decide()``)."""
        return _schedule(_plane(request), body, metrics)

    @router.get("/metrics", tags=["ops"])
    async def prometheus_metrics() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @router.get("/healthz", tags=["ops"])
    async def healthz() -> dict[str, str]:
        """The process is alive."""
        return {"status": "ok"}

    @router.get("/readyz", tags=["ops"])
    async def readyz(request: Request) -> dict[str, Any]:
        """The store answers and the default profile loads."""
        plane: ControlPlane | None = getattr(request.app.state, "plane", None)
        if plane is None:
            raise _error(503, "starting")
        try:
            plane.store.count_reports()
            plane.scheduler()
        except (sqlite3.Error, ValueError) as exc:
            raise _error(503, f"not ready: {exc}") from None
        return {"status": "ready", "nodes": len(plane.registry.nodes())}

    @router.get("/", include_in_schema=False)
    async def dashboard() -> HTMLResponse:
        return HTMLResponse((STATIC / "index.html").read_text())

    @router.get("/static/{name}", include_in_schema=False)
    async def static(name: str) -> Response:
        if name not in _STATIC_TYPES:
            raise _error(404, "not found")
        return Response((STATIC / name).read_bytes(), media_type=_STATIC_TYPES[name])

    return router


def _schedule(plane: ControlPlane, body: ScheduleRequest, metrics: Metrics) -> ScheduleResponse:
    names = [t.name for t in body.tasks]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise _error(422, f"duplicate task names: {dupes[:10]}")
    bound = {b.task_key for b in plane.registry.bindings()} & set(names)
    if bound:
        raise _error(409, f"tasks already bound: {sorted(bound)[:10]}")
    try:
        tasks = [t.to_task(i) for i, t in enumerate(body.tasks)]
    except ValueError as exc:
        raise _error(422, str(exc)) from None
    if not plane.registry.nodes():
        raise _error(409, "no nodes registered")
    try:
        snap, decision = plane.schedule(tasks, body.profile, body.dry_run)
    except ProfileError as exc:
        raise _error(400, str(exc)) from None
    names_by_id = {t.id: t.name for t in tasks}
    metrics.tasks.labels("bound").inc(len(decision.bindings))
    for s in decision.statuses.values():
        metrics.tasks.labels(s.code.name.lower()).inc()
    return ScheduleResponse(
        profile=plane.scheduler(body.profile).name,
        solver=decision.solver,
        time_s=snap.time_s,
        bindings=[
            BindingOut(task=names_by_id[b.task_id], node=snap.table.names[b.node], gpus=list(b.gpus))
            for b in decision.bindings
        ],
        unscheduled=[
            UnscheduledOut(task=names_by_id[i], code=s.code.name, plugin=s.plugin,
                           reasons=list(s.reasons))
            for i, s in sorted(decision.statuses.items())
        ],
    )


def _extender_routes(settings: ServiceSettings, metrics: Metrics) -> APIRouter:
    router = APIRouter(tags=["extender"])

    async def payload(request: Request) -> Any:
        body = await read_body(request, settings.max_body_bytes * 16)
        try:
            return json.loads(body)
        except ValueError as exc:
            raise _error(400, f"request body is not JSON: {exc}") from None

    def extender(request: Request) -> ext.Extender:
        e: ext.Extender = request.app.state.extender
        return e

    # filter and prioritize answer with JSONResponse: their results are plain JSON already, and
    # FastAPI's generic encoding of a returned dict costs ~100 ms for a 5,000-node NodeList
    # filter and prioritize answer with JSONResponse: their results are plain JSON already, and
    # FastAPI's generic encoding of a returned dict costs ~100 ms for a 5,000-node NodeList.
    # _MALFORMED: a payload of the wrong shape (a list where a struct belongs, ...) is the
    # caller's error (found by tests/service/test_fuzz.py), answered as such, never a 500.
    @router.post("/filter", response_model=dict[str, Any])
    async def filter_verb(request: Request) -> Response:
        """``ExtenderArgs`` -> ``ExtenderFilterResult``."""
        with metrics.latency.labels("filter").time():
            args = await payload(request)
            try:
                return JSONResponse(extender(request).filter(args))
            except _MALFORMED as exc:
                metrics.verbs.labels("filter", "error").inc()
                return JSONResponse(ext.filter_result(error=f"malformed ExtenderArgs: {exc}"))

    @router.post("/prioritize", response_model=list[dict[str, Any]])
    async def prioritize_verb(request: Request) -> Response:
        """``ExtenderArgs`` -> ``HostPriorityList`` (scores 0-10)."""
        with metrics.latency.labels("prioritize").time():
            args = await payload(request)
            try:
                return JSONResponse(extender(request).prioritize(args))
            except _MALFORMED as exc:
                metrics.verbs.labels("prioritize", "error").inc()
                raise _error(400, str(exc)) from None

    @router.post("/bind")
    async def bind_verb(request: Request) -> dict[str, Any]:
        """``ExtenderBindingArgs`` -> ``ExtenderBindingResult``."""
        with metrics.latency.labels("bind").time():
            e = extender(request)
            args = ext.binding_args(await payload(request))
            if isinstance(args, str):
                return e.finish_bind(None, args)
            return e.finish_bind(args, await run_in_threadpool(e.call_binder, args))

    @router.post("/preempt")
    async def preempt_verb(request: Request) -> dict[str, Any]:
        """``ExtenderPreemptionArgs`` -> ``ExtenderPreemptionResult``."""
        args = await payload(request)
        try:
            return extender(request).preempt(args)
        except _MALFORMED as exc:
            metrics.verbs.labels("preempt", "error").inc()
            raise _error(400, f"malformed ExtenderPreemptionArgs: {exc}") from None

    return router
