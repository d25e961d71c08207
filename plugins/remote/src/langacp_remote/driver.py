"""The ``remote`` target driver: ``langacp serve --remote URL GRAPH``.

GRAPH is an assistant id, an assistant name or a graph name on the server. The API key is
read from the variable named by ``--api-key-env`` (default: the SDK's ``LANGGRAPH_API_KEY``,
then ``LANGSMITH_API_KEY``); ``--header 'Name: value'`` adds headers for self-hosted auth.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from langacp.api import DriverTarget, Target, TargetError

__all__ = ["RemoteDriver", "connect"]

CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 60.0
"""Longest silence allowed on a connection: a server streaming a run sends a heartbeat every 5 s
(also while a tool runs), so a network that died without closing is noticed within a minute."""

NOTICE = (
    "{spec} runs on the LangGraph Server at {url}: langacp streams its runs and maps them as for a "
    "local graph, but plugins cannot add middleware or tools to it, so permission policies and modes "
    "are not enforced before its tools run; only its HumanInTheLoopMiddleware interrupts and the "
    "langacp_remote.editor tools reach the editor."
)


@dataclass
class Connection:
    """A client of the server and the assistant GRAPH resolves to."""

    client: Any
    url: str
    assistant_id: str
    graph_id: str
    nodes: list[str]
    context_schema: Mapping[str, Any] | None
    context_defaults: Mapping[str, Any]


def _headers(options: Mapping[str, Any]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for raw in options.get("headers") or []:
        name, sep, value = str(raw).partition(":")
        if not sep or not name.strip():
            raise TargetError(f"--header must be 'Name: value', not {raw!r}")
        headers[name.strip()] = value.strip()
    return headers


API_KEY_ENVS = ("LANGGRAPH_API_KEY", "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY")
"""Where the API key is read from without ``--api-key-env`` (the SDK's order)."""


async def _run_streams_are_not_resumed(response: Any) -> None:
    """Drop the ``Location`` of a run's stream: the SDK would reconnect to it when the stream breaks.

    langacp starts its runs with ``on_disconnect="cancel"``: when the stream breaks, the server
    cancels the run, so there is nothing to resume. Reconnecting only delayed the prompt's error
    (five attempts over 17-21 s) past what a lost server should take to report.
    """
    if response.request.method == "POST" and response.request.url.path.endswith("/runs/stream"):
        response.headers.pop("location", None)


def _client(options: Mapping[str, Any]) -> Any:
    """The SDK's async client, with one connect retry (the SDK's five make a lost server take seconds to report).

    A run's stream that breaks fails the prompt at once (:func:`_run_streams_are_not_resumed`).
    """
    import httpx
    from langgraph_sdk.client import LangGraphClient

    url = str(options.get("url") or "")
    if not url.startswith(("http://", "https://")):
        raise TargetError(f"--remote needs an http:// or https:// URL, not {url!r}")
    env = options.get("api_key_env")
    if env:
        key = os.environ.get(str(env))
        if not key:
            raise TargetError(f"--api-key-env {env}: that environment variable is not set")
    else:
        key = next((os.environ[name] for name in API_KEY_ENVS if os.environ.get(name)), None)
    headers = {"User-Agent": "langacp-remote", **_headers(options)}
    if key:
        headers["x-api-key"] = key
    http = httpx.AsyncClient(
        base_url=url.rstrip("/"),
        transport=httpx.AsyncHTTPTransport(retries=1),
        timeout=httpx.Timeout(connect=CONNECT_TIMEOUT, read=READ_TIMEOUT, write=READ_TIMEOUT, pool=CONNECT_TIMEOUT),
        headers=headers,
        event_hooks={"response": [_run_streams_are_not_resumed]},
    )
    return LangGraphClient(http)


async def connect(target: DriverTarget) -> Connection:
    """Reach the server and resolve GRAPH; :class:`TargetError` with a one-line reason otherwise."""
    import httpx
    from langgraph_sdk.errors import APIConnectionError, APIStatusError, APITimeoutError, NotFoundError

    client = _client(target.options)
    url = str(target.options.get("url")).rstrip("/")
    try:
        assistants: list[Any] = list(await client.assistants.search(limit=100))
        found = [a for a in assistants if target.spec in (a["assistant_id"], a.get("name"))]
        if not found:
            found = [a for a in assistants if a.get("graph_id") == target.spec]
        if not found:
            try:
                found = [await client.assistants.get(target.spec)]
            except (NotFoundError, APIStatusError):
                offered = ", ".join(sorted({_describe(a) for a in assistants})) or "nothing"
                raise TargetError(
                    f"the LangGraph server at {url} has no assistant or graph {target.spec!r}; it serves: {offered}"
                ) from None
        assistant = found[0]
        graph = await client.assistants.get_graph(assistant["assistant_id"])
        schemas = await client.assistants.get_schemas(assistant["assistant_id"])
    except TargetError:
        raise
    except (APIConnectionError, APITimeoutError, httpx.TransportError) as exc:
        raise TargetError(f"cannot reach the LangGraph server at {url}: {type(exc).__name__}: {exc}") from exc
    except APIStatusError as exc:
        raise TargetError(f"the LangGraph server at {url} refused: {exc}") from exc
    nodes = [str(n.get("id")) for n in graph.get("nodes") or [] if isinstance(n, dict)]
    context_schema = schemas.get("context_schema") if isinstance(schemas, Mapping) else None
    return Connection(
        client,
        url,
        str(assistant["assistant_id"]),
        str(assistant.get("graph_id")),
        nodes,
        context_schema if isinstance(context_schema, Mapping) else None,
        assistant.get("context") if isinstance(assistant.get("context"), Mapping) else {},
    )


def _describe(assistant: Mapping[str, Any]) -> str:
    return f"{assistant.get('name') or assistant['assistant_id']} (graph {assistant.get('graph_id')})"


class RemoteDriver:
    """Target driver ``remote`` (group ``langacp.targets``)."""

    persistent: ClassVar[bool] = True
    deletable: ClassVar[bool] = True
    """``session/delete`` deletes the session's threads on the server (:meth:`ThreadStore.delete`)."""

    def check(self, target: DriverTarget) -> None:
        """Reach the server and resolve GRAPH now, so a bad command line fails at once (exit 2)."""

        async def probe() -> None:
            connection = await connect(target)
            await connection.client.aclose()

        asyncio.run(probe())

    async def load(self, target: DriverTarget) -> Target:
        from langacp_remote.graph import RemoteGraph
        from langacp_remote.store import ThreadStore

        connection = await connect(target)
        graph = RemoteGraph(
            connection.client,
            connection.url,
            connection.assistant_id,
            connection.graph_id,
            connection.nodes,
            context_schema=connection.context_schema,
            context_defaults=connection.context_defaults,
        )
        store = ThreadStore(connection.client, connection.url, connection.assistant_id)
        return Target(
            spec=target.spec,
            graph=graph,
            store=store,
            notice=NOTICE.format(spec=target.spec, url=connection.url),
        )
