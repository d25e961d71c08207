"""Every plugin of this repository passes the conformance suite a third-party plugin runs.

One ``PluginConformance`` subclass per bundled plugin (``langacp.testing.conformance``). A mapper
that answers for every input on purpose is listed in ``answers_everything``, with the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langacp.testing.conformance import PluginConformance
from langacp_elicitation.asking import Waiting
from langacp_modes.session import ModesData
from langacp_permissions.remembered import PermissionsData
from langacp_titles.titles import TitlesData
from langacp_usage.meter import UsageData

REPO = Path(__file__).resolve().parents[1]

EXCEPTIONS: dict[str, dict[str, Any]] = {
    # langacp-commands answers every /command nobody else does ("unknown command, try /help").
    "commands": {"answers_everything": frozenset({"langacp_run_command"})},
    # langacp-tools titles, locates and shows the result of any call with arguments (its kind mapper
    # leaves tools it cannot place to the next plugin).
    "tools": {
        "answers_everything": frozenset({"langacp_tool_locations", "langacp_tool_result_content", "langacp_tool_title"})
    },
    # langacp-content shows any output block, known or not (an unknown one as text, with a warning).
    "content": {"answers_everything": frozenset({"langacp_output_block"})},
    # langacp-elicitation asks about any interrupt no other plugin answers, and maps any value to a
    # question (an unknown one as JSON with one text field); both registered trylast.
    "elicitation": {
        "answers_everything": frozenset({"langacp_resume_interrupt", "langacp_interrupt_question"}),
        "data_models": (Waiting,),
    },
    "modes": {"data_models": (ModesData,)},
    "permissions": {"data_models": (PermissionsData,)},
    "titles": {"data_models": (TitlesData,)},
    "usage": {"data_models": (UsageData,)},
}

PLUGINS = sorted(
    p.name
    for p in (REPO / "plugins").iterdir()
    if (p / "pyproject.toml").exists() and "[project.entry-points.langacp]" in (p / "pyproject.toml").read_text()
)

for _name in PLUGINS:
    _cls = type(
        f"TestConformance_{_name.replace('-', '_')}",
        (PluginConformance,),
        {"entry_point": _name, **EXCEPTIONS.get(_name, {})},
    )
    globals()[_cls.__name__] = _cls
