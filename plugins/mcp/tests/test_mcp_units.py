"""Pure parts of langacp-mcp: tool names, configuration parsing, MCP → ACP content."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from acp.schema import AcpMcpServer, EnvVariable, McpServerStdio
from mcp.types import AudioContent, CallToolResult, ImageContent, ResourceLink, TextContent

from langacp_mcp.config import load_configured, spec_from_acp
from langacp_mcp.connections import describe_error, qualified_name
from langacp_mcp.content import acp_tool_content, for_the_model

PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@pytest.mark.parametrize(
    ("server", "tool"),
    [("files", "read"), ("my.server", "do thing!"), ("ünïcode", "tööl"), ("s" * 50, "t" * 50), ("a", "b/c:d")],
)
def test_qualified_names_are_accepted_by_providers(server: str, tool: str) -> None:
    assert PROVIDER_NAME.match(qualified_name(server, tool))


def test_qualified_names_stay_unique() -> None:
    first = qualified_name("a.b", "c")
    assert first == "a_b__c"
    second = qualified_name("a_b", "c", {first})
    assert second != first and PROVIDER_NAME.match(second)
    long_one, long_two = qualified_name("s" * 60, "x"), qualified_name("s" * 60, "y")
    assert long_one != long_two


def test_acp_servers_become_specs() -> None:
    spec = spec_from_acp(
        McpServerStdio(name="s", command="/bin/srv", args=["-v"], env=[EnvVariable(name="K", value="${HOME}")])
    )
    assert (spec.transport, spec.command, spec.args, dict(spec.env)) == ("stdio", "/bin/srv", ("-v",), {"K": "${HOME}"})
    with pytest.raises(ValueError, match="not supported"):
        spec_from_acp(AcpMcpServer(type="acp", name="x", server_id="y"))


def test_unsupported_client_servers_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    configured = load_configured(str(tmp_path), [AcpMcpServer(type="acp", name="x", server_id="y")])
    assert configured.servers == [] and "not supported" in configured.problems[0]


def test_invalid_server_tables_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "langacp").mkdir()
    (tmp_path / "langacp" / "config.toml").write_text(
        "[mcp]\ntimeout = 2.5\n[mcp.servers.a]\nargs = []\n[mcp.servers.b]\nurl = 'http://x/mcp'\ntransport = 'ws'\n"
        "[mcp.servers.c]\nurl = 'http://x/sse'\ntransport = 'sse'\n"
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("LANGACP_MCP_TIMEOUT", raising=False)
    configured = load_configured(str(tmp_path), [])
    assert [(s.name, s.transport, s.url) for s in configured.servers] == [("c", "sse", "http://x/sse")]
    assert len(configured.problems) == 2 and configured.timeout == 2.5


def test_mcp_content_maps_to_its_acp_twin() -> None:
    result = CallToolResult(
        content=[
            TextContent(type="text", text="hi"),
            ImageContent(type="image", data="AAAA", mimeType="image/png"),
            AudioContent(type="audio", data="BBBB", mimeType="audio/wav"),
            ResourceLink(type="resource_link", name="spec", uri="file:///spec.md", mimeType="text/markdown"),
        ]
    )
    blocks = [c.content for c in acp_tool_content(result)]
    assert [b.type for b in blocks] == ["text", "image", "audio", "resource_link"]
    assert blocks[2].data == "BBBB" and blocks[3].uri == "file:///spec.md"
    # The model gets a note instead of the audio langchain-mcp-adapters cannot convert.
    assert [b.type for b in for_the_model(result).content] == ["text", "image", "text", "resource_link"]
    structured = acp_tool_content(CallToolResult(content=[], structuredContent={"n": 1}))
    assert structured[0].content.text == '{"n": 1}'


def test_describe_error_looks_inside_exception_groups() -> None:
    error = ExceptionGroup("unhandled errors in a TaskGroup", [ConnectionError("refused")])
    assert describe_error(error) == "ConnectionError: refused"


def test_servers_come_from_the_sessions_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's servers are read from the layers the core read as the session opened, not from the file again."""
    from langacp.api import load_layers
    from langacp_mcp.config import reads_project_file

    user = tmp_path / "langacp" / "config.toml"
    user.parent.mkdir()
    user.write_text("[mcp.servers.a]\ncommand = '/bin/a'\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    project = tmp_path / "project"
    project.mkdir()
    layers = load_layers(str(project))
    assert not reads_project_file(layers)  # no project file: nothing read per session
    user.unlink()
    assert [s.name for s in load_configured(str(project), [], layers).servers] == ["a"]


def test_an_untrusted_projects_servers_are_read_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from langacp.api import load_layers
    from langacp_mcp.config import reads_project_file

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("LANGACP_MCP_PROJECT_SERVERS", "1")
    project = tmp_path / "project"
    project.mkdir()
    (project / ".langacp.toml").write_text("[mcp.servers.p]\ncommand = '/bin/p'\nargs = ['allow']\n")
    layers = load_layers(str(project))
    assert reads_project_file(layers)  # the core's copy lost the "allow" argument: the plugin reads the file
    [server] = load_configured(str(project), [], layers).servers
    assert (server.name, server.args) == ("p", ("allow",))
