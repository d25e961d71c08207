"""langacp.config: the shared user and project configuration files."""

from __future__ import annotations

from pathlib import Path

import pytest

from langacp.config import ConfigFileError, project_config_path, read_config, user_config_path
from langacp.trust import load_table


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    user_dir = tmp_path / "xdg" / "langacp"
    user_dir.mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    project = tmp_path / "project"
    project.mkdir()
    return user_dir / "config.toml", project


def test_project_keys_win_over_user_keys(homes: tuple[Path, Path]) -> None:
    user, project = homes
    user.write_text('[plans]\nbuiltin_tool = false\nkeep = 1\n[tools.kinds]\ndeploy = "execute"\n')
    (project / ".langacp.toml").write_text("[plans]\nbuiltin_tool = true\n[other]\nx = 1\n")
    assert load_table("plans", str(project)) == {"builtin_tool": True, "keep": 1}
    assert load_table("tools.kinds", str(project)) == {"deploy": "execute"}
    assert load_table("missing", str(project)) == {}


def test_an_unreadable_file_is_skipped_and_logged(homes: tuple[Path, Path], caplog: pytest.LogCaptureFixture) -> None:
    user, project = homes
    user.write_text("[plans]\nkeep = 1\n")
    (project / ".langacp.toml").write_text("[plans\nbroken")
    assert load_table("plans", str(project)) == {"keep": 1}
    assert ".langacp.toml" in caplog.text
    with pytest.raises(ConfigFileError, match=r"\.langacp\.toml"):
        read_config(project / ".langacp.toml")


def test_paths(homes: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    user, project = homes
    assert user_config_path() == user
    assert project_config_path(str(project)) == project / ".langacp.toml"
    assert read_config(project / "nothing.toml") == {}
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")  # not absolute: ignored, as the XDG spec says
    assert user_config_path() == Path.home() / ".config" / "langacp" / "config.toml"
