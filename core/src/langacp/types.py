"""The types hooks receive: plain data, and the session (its data and the services it offers).

The bottom of the core: it imports only the leaf modules under it (:mod:`langacp.running`,
:mod:`langacp.roots`, :mod:`langacp.session_data`, :mod:`langacp.forms`), never the plugin manager
or the bridge (the ``layers`` contract in ``pyproject.toml`` holds this). Kept free
of LangChain and ACP imports at runtime so that loading plugins (done before ``initialize`` is
answered) stays cheap. The plain data lives in the modules under it, re-exported here:
:mod:`langacp.permission_rules`, :mod:`langacp.questions`, :mod:`langacp.turn_data`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from langacp.permission_rules import PermissionDecision, PermissionRule, PermissionVerdict, combine_permission
from langacp.questions import ElicitAction, ElicitationRefused, ElicitResult, Question
from langacp.roots import SessionRoots
from langacp.running import running_turn
from langacp.session_data import data_name, dump_data, load_data
from langacp.turn_data import PromptCancelled, ToolCallInfo, TurnOutcome, TurnPaused, model_call_messages

if TYPE_CHECKING:
    from acp.schema import ClientCapabilities, Implementation

__all__ = [
    "ElicitAction",
    "ElicitResult",
    "ElicitationRefused",
    "PermissionDecision",
    "PermissionRule",
    "PermissionVerdict",
    "PromptCancelled",
    "Question",
    "SessionContext",
    "ToolCallInfo",
    "TurnOutcome",
    "TurnPaused",
    "combine_permission",
    "model_call_messages",
    "pending_tool_calls",
]

M = TypeVar("M")


@dataclass
class SessionContext:
    """What langacp knows about one ACP session; handed to every session-scoped hook.

    Two parts: the session's **data**, which hooks read (ids, directories, MCP servers, the
    client's capabilities, mode, title, and what a plugin keeps with the session through two
    typed helpers: :meth:`data`, saved with the session and restored on ``session/load``, and
    :meth:`scratch`, live objects of this process); and the **services** the core gives it to
    call (:meth:`roots`, :meth:`request_permission`, ``send_update``, ``client``, ``plugins``,
    ``graph``, ``new_thread``), set up by the core when it opens the session.
    """

    # -- the session's data --
    session_id: str
    cwd: str
    additional_directories: list[str] = field(default_factory=list)
    mcp_servers: list[Any] = field(default_factory=list)
    client_capabilities: ClientCapabilities | None = None
    client_info: Implementation | None = None
    """The client's ``clientInfo`` from ``initialize`` (``name``, ``title``, ``version``), if it sent one."""
    protocol_version: int = 1
    """The ACP version the session's client speaks: 1, or 2 (ACP v2: no client ``fs``/``terminal``)."""
    mode_id: str | None = None
    """The session's current mode; the core saves it with the session."""
    title: str | None = None
    """The session's title (``session/list`` shows it); a plugin may set it, the core saves it."""
    state: dict[str, Any] = field(default_factory=dict)
    """An untyped dict for plugins written before :meth:`scratch` (still supported; the core does
    not use it): prefer :meth:`scratch`, whose class key two plugins never share by accident."""
    stored: dict[str, Any] = field(default_factory=dict, repr=False)
    """The saved plugin data as the store holds it (JSON by owner name); the core's, read :meth:`data`."""

    # -- the services the core set up --
    send_update: Callable[[Any], Awaitable[None]] | None = None
    """Send one ``session/update`` for this session (an ACP update model from ``acp.schema``)."""
    client: Any = None
    """The SDK's connection to the client (``acp.Client``): fs, terminal; ask through :meth:`request_permission`."""
    plugins: Any = None
    """The loaded plugins (a ``langacp.api.Plugins``), so a hook can ask the other mappers
    (``plugins.describe_tool(...)``)."""
    graph: Any = None
    """The session's compiled graph, once built (e.g. to list its tools); ``None`` before."""
    new_thread: Callable[[], Awaitable[None]] | None = None
    """Start a fresh conversation thread for this session (what ``/clear`` does): the model no
    longer sees the earlier messages; the session, its settings and its old thread are kept."""

    _data: dict[str, Any] = field(default_factory=dict, repr=False, init=False)
    _scratch: dict[type[Any], Any] = field(default_factory=dict, repr=False, init=False)

    def data(self, model: type[M], name: str | None = None) -> M:
        """This session's ``model`` data, saved with the session under ``name``.

        ``model`` is a pydantic model or a dataclass whose fields all have defaults. The first
        call restores it from the stored session (or makes ``model()``); later calls return the
        same object: change it in place, and the core saves it with the session (after each
        prompt, mode or config change and command). ``name`` defaults to the model's top-level
        package without ``langacp_`` (``langacp_modes`` → ``"modes"``).
        """
        key = name or data_name(model)
        found = self._data.get(key)
        if found is None:
            found = self._data[key] = load_data(model, self.stored.get(key), name=key, session=self)
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

    def scratch_if_any(self, model: type[M]) -> M | None:
        """This session's live ``model`` object if :meth:`scratch` made one, else ``None`` (making nothing)."""
        found: M | None = self._scratch.get(model)
        return found

    def saved_data(self) -> dict[str, Any]:
        """``stored`` with the current value of every :meth:`data` object: what the core saves."""
        for key, value in self._data.items():
            self.stored[key] = dump_data(value)
        return self.stored

    # -- the services --
    async def roots(self) -> tuple[str, ...]:
        """``cwd`` then each of ``additional_directories`` as a real path (``os.path.realpath``).

        Resolved once, off the event loop, and kept: the core resolves them when it opens the
        session (with its configuration files, before the plugins' session hooks), so this
        normally returns at once; otherwise (directories changed, a session the core did not
        open) they are resolved now in a worker thread, and kept.
        """
        return await self.scratch(SessionRoots).resolve((self.cwd, *self.additional_directories))

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

    async def elicit(
        self, message: str, schema: Mapping[str, Any] | None = None, *, url: str | None = None
    ) -> ElicitResult:
        """Ask the user (``elicitation/create``): a form of ``schema``, or a page at ``url`` to open.

        A form needs the client's ``elicitation.form`` capability, a URL its ``elicitation.url``
        one and an ``https:`` address. Only within a running turn of this session; otherwise, or
        when the client cannot be asked, the result is ``"unavailable"`` with the reason. An
        answer is checked against ``schema``: :class:`ElicitationRefused` when it does not match.
        ``ValueError`` for a schema outside ACP's restricted one or a URL that is not ``https:``.
        """
        from langacp.forms import FormError, check_form_answer, check_form_schema
        from langacp.running import live_turn

        form = check_form_schema(schema if schema is not None else {}) if url is None else None
        if url is not None and not url.lower().startswith("https://"):
            raise ValueError(f"only https: URLs are opened for the user, not {url[:80]!r}")
        reporter = live_turn(self)
        if reporter is None:
            return ElicitResult("unavailable", reason="no turn of this session is running")
        elicitation = getattr(self.client_capabilities, "elicitation", None)
        if self.client is None or getattr(elicitation, "form" if url is None else "url", None) is None:
            mode = "forms" if url is None else "URLs"
            return ElicitResult("unavailable", reason=f"the client does not take questions as {mode}")
        await reporter.sink.flush()  # the turn's updates first: what the question is about
        try:
            response = await self.client.create_elicitation(message=message, mode=self._elicit_mode(form, url))
        except Exception as exc:
            from acp import RequestError

            if isinstance(exc, RequestError):
                raise
            raise ElicitationRefused(f"not an answer to the question: {exc}") from exc
        action = getattr(response, "action", None)
        if action in ("decline", "cancel"):
            return ElicitResult(action)
        if action != "accept":
            raise ElicitationRefused(f"not an answer to the question: {response!r:.200}")
        if form is None:
            return ElicitResult("accept", {})
        try:
            return ElicitResult("accept", check_form_answer(form, getattr(response, "content", None)))
        except FormError as exc:
            raise ElicitationRefused(str(exc)) from None

    def _elicit_mode(self, form: dict[str, Any] | None, url: str | None) -> Any:
        from acp.schema import ElicitationFormSessionMode, ElicitationSchema, ElicitationUrlSessionMode

        if form is not None:
            return ElicitationFormSessionMode(
                session_id=self.session_id, requested_schema=ElicitationSchema.model_validate(form)
            )
        import uuid

        return ElicitationUrlSessionMode.model_validate(
            {"sessionId": self.session_id, "elicitationId": uuid.uuid4().hex, "url": url}
        )

    async def notify(
        self, severity: Literal["info", "warning", "error"], title: str, description: str | None = None
    ) -> bool:
        """Tell the user something that is not part of the conversation (a skipped plugin, an ignored setting).

        Sent as an ACP ``notice`` when the client advertised ``session.notices``; then ``True``.
        ``False`` when it was not sent (the client cannot show notices, or the session has no
        client): say it the way you would without notices (a message, a log line).
        """
        from langacp.protocol import NoticeUpdate, client_notices

        if self.send_update is None or not client_notices(self.client_capabilities):
            return False
        await self.send_update(NoticeUpdate(severity=severity, title=title[:200] or "langacp", description=description))
        return True

    async def _show_call(self, tool_call: Any) -> None:
        """Before asking about ``tool_call``: its held arguments, then every queued update of the turn, sent."""
        turn = running_turn(self)
        if turn is None:
            return
        call_id = getattr(tool_call, "tool_call_id", None)
        raw_input = getattr(tool_call, "raw_input", None)
        if isinstance(call_id, str):
            turn.show_arguments(call_id, raw_input if isinstance(raw_input, dict) else None)
        await turn.sink.flush()


def pending_tool_calls(session: SessionContext) -> list[ToolCallInfo]:
    """Tool calls of ``session``'s running turn the client was shown and that have not started, in order."""
    turn = running_turn(session)
    return list(turn.pending_calls()) if turn is not None else []
