"""An ACP agent written by hand on the SDK, with langacp's library pieces doing the ACP work.

It sends the same session updates as ``langacp serve langacp.testing.workspace:agent`` with
the same plugins (the tests compare the two): text and thought chunks, tool calls with the
plugins' kinds, titles, locations, diffs and results, permission requests, modes.

Run it (an editor spawns it the same way)::

    python examples/own_acp_agent.py                     # every installed langacp plugin
    python examples/own_acp_agent.py -p tools -p modes   # only these plugins

The model is langacp's scripted test model (prompts like ``tool read_file {"path": "README.md"}``,
``think``, ``echo hi``) with file tools confined to the session's directory; put your own chat
model and tools in :func:`build_agent`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import uuid
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, run_agent
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SetSessionModeResponse,
)
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from langacp.lib import (
    ACPCallbackHandler,
    ACPModeMiddleware,
    ACPPermissionMiddleware,
    ACPSessionMiddleware,
    ACPToolMiddleware,
    LibrarySession,
    Snapshots,
    close_session,
    finish_turn,
    get_session,
    open_session,
    pending_interrupts,
    resume_interrupts,
    start_turn,
    to_request_error,
)
from langacp.plugins import Plugins, load_plugins
from langacp.testing.agent import make_model
from langacp.testing.workspace import respond, workspace_tools

SYSTEM_PROMPT = "You are a scripted workspace agent."


def build_agent(conn: Client, session: LibrarySession, checkpointer: Any, snapshots: Snapshots, hitl: bool) -> Any:
    """The session's LangChain agent: your model and tools, the plugins' tools, the ACP middleware."""
    model = make_model()
    model.responder = respond
    return create_agent(
        model,
        tools=session.tools_with(workspace_tools(session.context.cwd)),  # + plugins': MCP tools, switch_mode, …
        system_prompt=session.system_prompt(SYSTEM_PROMPT),  # + plugins' additions (MCP servers' instructions)
        middleware=[
            ACPSessionMiddleware(conn, snapshots=snapshots),
            ACPModeMiddleware(conn),
            ACPPermissionMiddleware(conn, interrupt=hitl),  # hitl: interrupt, resumed in _turn below
            ACPToolMiddleware(conn),
        ],
        checkpointer=checkpointer,
    )


class OwnAgent:
    """A plain class with the SDK's snake_case methods (not a subclass of ``acp.Agent``)."""

    def __init__(self, plugins: Plugins, snapshots: Snapshots = "none", *, hitl: bool = False) -> None:
        self.plugins = plugins
        self.conn: Client | None = None
        self.checkpointer = InMemorySaver()
        self.agents: dict[str, Any] = {}
        self.turns: dict[str, asyncio.Task[PromptResponse]] = {}
        self.snapshots = snapshots
        self.hitl = hitl
        self.client_capabilities: Any = None

    def on_connect(self, conn: Client) -> None:
        self.conn = conn
        self.modes = ACPModeMiddleware(conn)  # also switches modes: set_session_mode below

    def _conn(self) -> Client:
        assert self.conn is not None, "run_agent connects the client first"
        return self.conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, **_: Any) -> InitializeResponse:
        self.client_capabilities = client_capabilities
        capabilities = AgentCapabilities(prompt_capabilities=PromptCapabilities(embedded_context=True))
        self.plugins.agent_capabilities(capabilities)  # plugins turn on what they add (images, MCP transports)
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=capabilities,
            agent_info=Implementation(name="own-acp-agent", title="Own ACP agent", version="1.0"),
        )

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any) -> NewSessionResponse:
        conn = self._conn()
        session_id = uuid.uuid4().hex
        session = await open_session(
            conn,
            session_id,
            cwd,
            mcp_servers=mcp_servers,
            client_capabilities=self.client_capabilities,
            plugins=self.plugins,
        )
        self.agents[session_id] = build_agent(conn, session, self.checkpointer, self.snapshots, self.hitl)
        return NewSessionResponse(session_id=session_id, modes=self.modes.modes(session_id))

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        await self.modes.set_mode(session_id, mode_id)
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        if session_id not in self.agents:
            raise RequestError.resource_not_found(session_id)
        running = self.turns.get(session_id)
        if running is not None and not running.done():
            raise RequestError.invalid_params({"details": "a prompt is already running in this session"})
        turn = self.turns[session_id] = asyncio.get_running_loop().create_task(self._turn(session_id, prompt))
        return await asyncio.shield(turn)

    async def cancel(self, session_id: str, **_: Any) -> None:
        turn = self.turns.get(session_id)
        if turn is not None and not turn.done():
            turn.cancel()  # the SDK does not stop the running prompt: we must

    async def close_session(self, session_id: str, **_: Any) -> None:
        await self.cancel(session_id)
        self.agents.pop(session_id, None)
        await close_session(self._conn(), session_id)

    async def _turn(self, session_id: str, prompt: list[Any]) -> PromptResponse:
        conn, agent = self._conn(), self.agents[session_id]
        content = await start_turn(conn, session_id, prompt)  # ACP blocks → LangChain content, via the plugins
        config: dict[str, Any] = {
            "configurable": {"thread_id": session_id},
            "callbacks": [ACPCallbackHandler(conn)],  # streams the tokens
            "recursion_limit": 1000,
        }
        graph_input: Any = {"messages": [HumanMessage(content=content)]}
        state: dict[str, Any] | None = None
        error: BaseException | None = None
        cancelled = False
        try:
            while True:
                state = await agent.ainvoke(graph_input, config)
                interrupts = pending_interrupts(state)
                if not interrupts:
                    break
                resume = await resume_interrupts(conn, session_id, interrupts)  # e.g. HumanInTheLoopMiddleware
                if resume is None:
                    break
                graph_input = Command(resume=resume)
        except asyncio.CancelledError:
            cancelled = True
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
        except Exception as exc:  # noqa: BLE001 - answered below
            error = exc
        response = await finish_turn(
            conn, session_id, state=state, error=error, cancelled=cancelled, graph=agent, config=config
        )
        if error is not None and response.stop_reason == "end_turn":
            raise to_request_error(get_session(conn, session_id), error)
        return response


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-p", dest="plugins", action="append", default=[], help="load only these plugins")
    parser.add_argument("--snapshots", default="none", choices=["initial", "final", "all", "none"])
    parser.add_argument("--hitl", action="store_true", help="ask permission by interrupting the graph")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)  # stdout is the protocol
    # With -p, only those plugins; without, every installed one (unless LANGACP_DISABLE_PLUGIN_AUTOLOAD=1).
    plugins = load_plugins(enabled=args.plugins, autoload=False if args.plugins else None)
    # session/close is still in the unstable part of the protocol
    agent = OwnAgent(plugins, args.snapshots, hitl=args.hitl)
    # OwnAgent offers only the methods it implements (others answer -32601), not the whole acp.Agent protocol.
    asyncio.run(run_agent(agent, use_unstable_protocol=True))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
