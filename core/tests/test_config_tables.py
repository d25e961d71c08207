"""One validation for every plugin's config table: ``read_table`` with a pydantic model, ``FILE:LINE`` errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from langacp.api import (
    ConfigError,
    ConfigModel,
    ConfigTable,
    Decision,
    Strings,
    hookimpl,
    load_layers,
    read_config,
    read_table,
)
from langacp.default_plugins.trust import check_layers
from langacp.plugins import Plugins


class Rules(ConfigModel):
    default: Decision | None = None
    kinds: dict[str, Decision] = Field(default_factory=dict)


class Mine(ConfigModel):
    greeting: str = "hello"
    shout: bool = False
    tags: Strings = ()
    rules: Rules | None = None
    limit: int | None = None


def _error(tmp_path: Path, text: str, name: str = "mine") -> ConfigError:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_table(Mine, name, read_config(path), path)
    return caught.value


@pytest.mark.parametrize(
    ("text", "line", "said"),
    [
        ('[mine]\ngreting = "hi"\n', 2, "unknown key(s) in [mine]: greting; fix: did you mean greeting?"),
        ("# x\n[mine]\nshout = 1\n", 3, "[mine] shout must be true or false, not 1"),
        ('[mine]\ntags = "a"\n', 2, '[mine] tags must be a list of strings; fix: write it as ["a", "b"]'),
        ('[mine]\nlimit = "3"\n', 2, "[mine] limit must be a whole number, not '3'"),
        ('[mine.rules]\ndefault = "alow"\n', 2, '[mine.rules] default: \'alow\' is not "allow", "ask" or "deny"'),
        ('[mine]\nx = 1\n[mine.rules.kinds]\n"read" = "nope"\n', 2, "unknown key(s) in [mine]: x"),
        ('[mine.rules.kinds]\n"a.b" = "nope"\n', 2, "[mine.rules.kinds] a.b: 'nope' is not"),
        ("mine = 3\n", 1, "[mine] must be a table"),
        ('[other]\nx = 1\n\n[mine.rules]\ncolour = "red"\n', 5, "unknown key(s) in [mine.rules]: colour"),
    ],
)
def test_an_error_names_the_file_the_line_the_key_and_the_fix(tmp_path: Path, text: str, line: int, said: str) -> None:
    error = _error(tmp_path, text)
    assert said in str(error)
    where = f"{tmp_path / 'config.toml'}:{line}: " if line else f"{tmp_path / 'config.toml'}: "
    assert str(error).startswith(where), str(error)
    assert error.line == (line or None) and error.table == "mine"


def test_a_decision_typo_says_which_was_meant(tmp_path: Path) -> None:
    error = _error(tmp_path, '[mine.rules]\ndefault = "dney"\n')
    assert 'fix: did you mean "deny"? expected "allow", "ask" or "deny"' in str(error)


def test_values_are_taken_as_written_and_absent_tables_are_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[mine]\ntags = ["a", "b"]\n[mine.rules.kinds]\nread = "allow"\n')
    table = read_table(Mine, "mine", read_config(path), path)
    assert table.tags == ("a", "b") and table.rules is not None and table.rules.kinds == {"read": "allow"}
    assert read_table(Mine, "absent", read_config(path), path) == Mine()


def test_layers_the_project_keys_over_the_users_and_each_layer_alone(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "config" / "langacp").mkdir(parents=True)
    (tmp_path / "config" / "langacp" / "config.toml").write_text('[mine]\ngreeting = "hi"\nshout = true\n')
    (tmp_path / ".langacp.toml").write_text('[mine]\ngreeting = "yo"\n')
    layers = load_layers(str(tmp_path))
    assert read_table(Mine, "mine", layers) == Mine(greeting="yo", shout=True)
    assert read_table(Mine, "mine", layers, project=False) == Mine(greeting="hi", shout=True)
    assert read_table(Mine, "mine", layers, project=True) == Mine(greeting="yo")


def test_a_projects_loosening_is_taken_out_before_its_table_is_validated(tmp_path: Path, monkeypatch: Any) -> None:
    """The trust rules hold: a project's ``allow`` never reaches a plugin, valid or not."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / ".langacp.toml").write_text('[mine.rules]\ndefault = "allow"\n[mine.rules.kinds]\nread = "deny"\n')
    layers = load_layers(str(tmp_path))
    table = read_table(Mine, "mine", layers, project=True)
    assert table.rules == Rules(kinds={"read": "deny"})
    assert any('mine.rules.default = "allow"' in notice for notice in layers.notices)


class _Declares:
    @hookimpl
    def langacp_config_tables(self) -> list[ConfigTable]:
        return [ConfigTable("mine", Mine, "nothing is shouted")]


def test_the_core_checks_every_declared_table_of_both_files(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    user = tmp_path / "config" / "langacp" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("[mine]\nshout = 1\n")
    (tmp_path / ".langacp.toml").write_text("[mine]\ntags = 3\n")
    plugins = Plugins()
    plugins.register(_Declares(), name="declares")
    [table] = plugins.config_tables()
    found = check_layers(load_layers(str(tmp_path)), [table])
    assert [(p.split(": ", 1)[0], m) for p, m in found] == [
        (f"{user}:2", "nothing is shouted"),
        (f"{tmp_path / '.langacp.toml'}:2", "the project's [mine] is ignored; yours applies"),
    ]


def test_an_unreadable_file_is_one_line_with_what_every_plugin_does_meanwhile(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    user = tmp_path / "config" / "langacp" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("[mine\n")
    layers = load_layers(str(tmp_path))
    [(problem, meaning)] = check_layers(layers, [ConfigTable("mine", Mine, "nothing is shouted")])
    assert (
        problem
        == f"your config file is ignored, cannot read it: {user}:1:6: Expected ']' at the end of a table declaration"
    )
    assert meaning == "nothing is shouted" and problem == layers.unreadable(project=False)
    assert layers.report(problem) and not layers.report(problem)  # logged once
