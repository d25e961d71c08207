"""Plain data types passed to hooks.

Kept free of LangChain and ACP imports at runtime so that loading plugins (done before
``initialize`` is answered) stays cheap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from acp.schema import ClientCapabilities, Implementation

    from langacp.plugins import Plugins

__all__ = [
    "PermissionDecision",
    "PermissionRule",
    "PermissionVerdict",
    "PromptCancelled",
    "SessionContext",
    "ToolCallInfo",
    "TurnOutcome",
    "model_call_messages",
]

M = TypeVar("M")

PermissionDecision = Literal["allow", "ask", "deny"]
"""What a permission policy says about one tool call."""


@dataclass(frozen=True)
class PermissionVerdict:
    """A permission decision with the reason a tool call may not run.

    The permission hooks may return one instead of a plain decision: when the call is not
    allowed, ``reason`` is what the model is told (and the editor shows in the failed tool
    call), e.g. ``"the user declined it"``.
    """

    decision: PermissionDecision
    reason: str | None = None


@dataclass(frozen=True)
class PermissionRule:
    """A rule a plugin contributes through ``langacp_permission_rules``; the core enforces it.

    It applies to calls whose tool name matches ``tool`` and whose kind matches ``kind``
    (shell-style globs, case-sensitive; ``None`` matches anything, so a rule naming neither
    applies to every call it is returned for). ``reason`` is what the model and the editor are
    told when the rule denies a call; ``source`` says who made the rule (``"mode readonly"``,
    a config file's path), for logs and reasons.
    """

    decision: PermissionDecision
    tool: str | None = None
    kind: str | None = None
    reason: str | None = None
    source: str = ""

    def __post_init__(self) -> None:
        if self.decision not in ("allow", "ask", "deny"):
            raise ValueError(f"a rule's decision must be allow, ask or deny, not {self.decision!r}")

    def matches(self, tool: str, kind: str) -> bool:
        """Whether this rule applies to a call of ``tool`` of kind ``kind``."""
        return (self.tool is None or fnmatchcase(tool, self.tool)) and (
            self.kind is None or fnmatchcase(kind, self.kind)
        )


def combine_permission(
    rules: Sequence[PermissionRule], policy: PermissionVerdict, tool: str, kind: str
) -> PermissionVerdict:
    """The core's decision for one call from the plugins' rules and the policy's verdict.

    1. a matching ``deny`` rule denies (the first one's reason);
    2. the policy's ``deny`` is final;
    3. a matching ``ask`` rule asks;
    4. a matching ``allow`` rule allows (it turns the policy's ``ask`` into ``allow``);
    5. otherwise the policy's verdict stands.
    """
    matching = [rule for rule in rules if rule.matches(tool, kind)]
    for rule in matching:
        if rule.decision == "deny":
            source = f" (a rule from {rule.source})" if rule.source else ""
            return PermissionVerdict("deny", rule.reason or f"a permission rule denies it{source}")
    if policy.decision == "deny":
        return policy
    for decision in ("ask", "allow"):
        if any(rule.decision == decision for rule in matching):
            return PermissionVerdict(decision)  # type: ignore[arg-type]
    return policy


class PromptCancelled(Exception):
    """Raise from a hook or tool to end the turn with stop reason ``cancelled``.

    For example when the client answers a permission request with ``cancelled``.
    (``asyncio.CancelledError`` raised inside a graph node is turned into an error by
    LangGraph; this exception is not.)
    """


@dataclass
class SessionContext:
    """What langacp knows about one ACP session; handed to every session-scoped hook.

    A plugin keeps what it needs with the session through two typed helpers: :meth:`data`
    (saved with the session, restored on ``session/load``) and :meth:`scratch` (live objects
    of this process). ``send_update`` sends one ``session/update`` for this session (an ACP
    update model from ``acp.schema``).
    """

    session_id: str
    cwd: str
    additional_directories: list[str] = field(default_factory=list)
    mcp_servers: list[Any] = field(default_factory=list)
    client_capabilities: ClientCapabilities | None = None
    client_info: Implementation | None = None
    """The client's ``clientInfo`` from ``initialize`` (``name``, ``title``, ``version``), if it sent one."""
    mode_id: str | None = None
    """The session's current mode; the core saves it with the session."""
    title: str | None = None
    """The session's title (``session/list`` shows it); a plugin may set it, the core saves it."""
    state: dict[str, Any] = field(default_factory=dict)
    """Untyped scratch space, kept for older plugins: prefer :meth:`scratch`."""
    send_update: Callable[[Any], Awaitable[None]] | None = None
    client: Any = None
    """The SDK's connection to the client (``acp.Client``): permission requests, fs, terminal."""
    plugins: Plugins | None = None
    """The loaded plugins, so a hook can ask the other mappers (``plugins.describe_tool(...)``)."""
    graph: Any = None
    """The session's compiled graph, once built (e.g. to list its tools); ``None`` before."""
    new_thread: Callable[[], Awaitable[None]] | None = None
    """Start a fresh conversation thread for this session (what ``/clear`` does): the model no
    longer sees the earlier messages; the session, its settings and its old thread are kept."""
    stored: dict[str, Any] = field(default_factory=dict, repr=False)
    """The saved plugin data as the store holds it (JSON by owner name); the core's, read :meth:`data`."""
    _data: dict[str, Any] = field(default_factory=dict, repr=False, init=False)
    _scratch: dict[type[Any], Any] = field(default_factory=dict, repr=False, init=False)
    _roots: tuple[tuple[str, ...], tuple[str, ...]] | None = field(default=None, repr=False, init=False)

    @property
    def real_roots(self) -> tuple[str, ...] | None:
        """``cwd`` then each of ``additional_directories`` as a real path (``os.path.realpath``), or ``None``.

        The core resolves them in the worker thread that reads the session's configuration, before
        the plugins' ``langacp_session_created`` / ``langacp_session_loaded`` hooks: a plugin reads
        them here instead of touching the file system on the event loop. ``None`` when the core has
        not resolved them (the file system did not answer in time, or the session was not opened by
        the core) or the directories changed since: then resolve them yourself, in a worker thread.
        """
        if self._roots is None or self._roots[0] != (self.cwd, *self.additional_directories):
            return None
        return self._roots[1]

    def _resolved(self, given: tuple[str, ...], roots: tuple[str, ...]) -> None:
        """Keep ``roots``, the real paths of the directories ``given`` (the core's; see :attr:`real_roots`)."""
        self._roots = (given, roots)

    def data(self, model: type[M], name: str | None = None) -> M:
        """This session's ``model`` data, saved with the session under ``name``.

        ``model`` is a pydantic model or a dataclass whose fields all have defaults. The first
        call restores it from the stored session (or makes ``model()``); later calls return the
        same object: change it in place, and the core saves it with the session (after each
        prompt, mode or config change and command). ``name`` defaults to the model's top-level
        package without ``langacp_`` (``langacp_modes`` → ``"modes"``).
        """
        from langacp.session_data import data_name, load_data

        key = name or data_name(model)
        found = self._data.get(key)
        if found is None:
            found = self._data[key] = load_data(model, self.stored.get(key), name=key, session_id=self.session_id)
        elif not isinstance(found, model):
            raise TypeError(f"session data {key!r} is a {type(found).__name__}, not a {model.__name__}")
        return found

    def scratch(self, model: type[M], factory: Callable[[], M] | None = None) -> M:
        """This session's live ``model`` object (not saved), made by ``factory`` (default ``model()``) on first use.

        Keyed by the class itself, so two plugins never share one by accident.
        """
        found = self._scratch.get(model)
        if found is None:
            found = self._scratch[model] = factory() if factory is not None else model()
        return found  # type: ignore[no-any-return]

    async def request_permission(self, tool_call: Any, options: Sequence[Any]) -> str:
        """Ask the client about ``tool_call`` (``session/request_permission``); the ``option_id`` chosen.

        ``tool_call`` is an ``acp.schema.ToolCallUpdate``, ``options`` are ``PermissionOption`` s.
        :class:`PromptCancelled` when the client answers ``cancelled`` (the turn then ends as
        cancelled); ``RuntimeError`` when the session has no client, ``ValueError`` for an answer
        that is neither. The running turn's updates are sent first, the call's arguments among
        them, so the request never reaches the client before what it shows of the call.
        """
        if self.client is None:
            raise RuntimeError(f"session {self.session_id} has no client to ask")
        await self._show_call(tool_call)
        response = await self.client.request_permission(
            session_id=self.session_id, tool_call=tool_call, options=list(options)
        )
        outcome = getattr(response, "outcome", None)
        if getattr(outcome, "outcome", None) == "cancelled":
            raise PromptCancelled("the client cancelled the permission request")
        chosen = getattr(outcome, "option_id", None)
        if getattr(outcome, "outcome", None) != "selected" or not isinstance(chosen, str):
            raise ValueError(f"not an answer to a permission request: {response!r:.200}")
        return chosen

    async def _show_call(self, tool_call: Any) -> None:
        """Before asking about ``tool_call``: its held arguments, then every queued update of the turn, sent."""
        from langacp.running import running_turn

        reporter = running_turn(self)
        if reporter is None:
            return
        call_id = getattr(tool_call, "tool_call_id", None)
        raw_input = getattr(tool_call, "raw_input", None)
        if isinstance(call_id, str):
            reporter.show_arguments(call_id, raw_input if isinstance(raw_input, dict) else None)
        await reporter.sink.flush()

    def saved_data(self) -> dict[str, Any]:
        """``stored`` with the current value of every :meth:`data` object: what the core saves."""
        from langacp.session_data import dump_data

        for key, value in self._data.items():
            self.stored[key] = dump_data(value)
        return self.stored


@dataclass(frozen=True)
class ToolCallInfo:
    """One tool call the model made: what mappers and permission policies look at."""

    tool_call_id: str
    name: str
    args: dict[str, Any]

    @classmethod
    def from_tool_call(cls, tool_call: Mapping[str, Any]) -> ToolCallInfo:
        """From a LangChain ``ToolCall`` dict (``{"id", "name", "args"}``)."""
        return cls(tool_call.get("id") or "", tool_call["name"], dict(tool_call.get("args") or {}))


def model_call_messages(response: Any) -> list[Any]:
    """The messages a model call answered, as an ``awrap_model_call`` middleware gets it from ``handler``.

    A bare ``AIMessage``, a ``ModelResponse`` (its ``result``) or an ``ExtendedModelResponse``
    (its ``model_response.result``); anything else answered nothing.
    """
    from langchain_core.messages import AIMessage  # loaded already: a model was called

    if isinstance(response, AIMessage):
        return [response]
    inner = getattr(response, "model_response", response)
    result = getattr(inner, "result", None)
    return list(result) if isinstance(result, list) else []


@dataclass
class TurnOutcome:
    """How a prompt turn ended; the stop-reason hook reads it."""

    cancelled: bool = False
    last_message: Any = None
    """The last ``AIMessage`` the model produced in this turn, if any."""
    finish_reason: str | None = None
    """The provider's ``finish_reason`` / ``stop_reason`` from the last model response."""
    model_calls: int = 0
    tool_calls: int = 0
    error: BaseException | None = None
    interrupted: bool = False
    """The graph stopped on an interrupt nobody resumed."""
    usage: dict[str, int] = field(default_factory=dict)
    """Token totals of the turn's model calls, summed from their ``usage_metadata``:
    ``input_tokens``, ``output_tokens``, ``total_tokens``, and when reported ``cache_read``,
    ``cache_creation``, ``reasoning``."""
