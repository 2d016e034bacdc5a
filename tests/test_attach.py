"""nesbot.attach in a user's loop: what it refuses, what it says, and that it notices a loop
that does not step once per action. Whole games through it: tests/test_docs.py."""

import warnings

import pytest
from nes_py import NESEnv

import nesbot
from nesbot.nes import ram


@pytest.fixture
def env(rom_path):
    env = NESEnv(str(rom_path))
    env.reset()
    yield env
    env.close()


def test_attach_refuses_what_it_cannot_play(env, tmp_path):
    with pytest.raises(nesbot.NesbotError, match=r"needs a nes_py\.NESEnv"):
        nesbot.attach(object())
    with pytest.raises(nesbot.NesbotError, match="unknown planner setting"):
        nesbot.attach(env, tap_speed=30)
    with pytest.raises(nesbot.NesbotError, match="--tap-hz 7"):
        nesbot.attach(env, tap_hz=7)
    with pytest.raises(nesbot.NesbotError, match="start level 20"):
        nesbot.attach(env, level=20)
    with pytest.raises(nesbot.NesbotError, match="unknown evaluator"):
        nesbot.attach(env, evaluator="nobody")
    # What the command line's parser refuses (a seed of 1.5 or True would have played).
    for wrong in ({"seed": 1.5}, {"seed": True}, {"seed": "3"}, {"level": "19"}):
        with pytest.raises(nesbot.NesbotError, match="a whole number is needed"):
            nesbot.attach(env, **wrong)
    other = tmp_path / "other.nes"
    other.write_bytes(b"NES\x1a" + bytes(12))
    with pytest.raises(nesbot.NesbotError, match=r"other\.nes"):
        nesbot.attach(NESEnvWithPath(env, other))


class NESEnvWithPath(NESEnv):
    """An env whose ROM file is `path` (nes-py itself would refuse to load a bad file)."""

    def __init__(self, env: NESEnv, path) -> None:
        self.__dict__.update(env.__dict__)
        self._rom_path = str(path)


def test_a_fresh_env_is_taken_as_it_is_and_a_used_one_power_cycled(env):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        player = nesbot.attach(env)  # nothing has run: nothing to say
    for _ in range(300):
        env.step(player.action())
    assert player.stage == "menus" and player.frame == 300
    with pytest.warns(nesbot.NesbotWarning, match="switched the env's console off and on"):
        again = nesbot.attach(env)
    assert not env.ram.any() and again.frame == 0


def test_a_loop_that_steps_twice_is_stopped(env):
    player = nesbot.attach(env)
    for _ in range(100):
        env.step(player.action())
    env.step(player.action())
    env.step(0)  # a second step for one action
    with pytest.raises(nesbot.NesbotError, match="not stepped exactly once per"):
        player.action()


@pytest.mark.slow
def test_in_the_game_a_skipped_step_is_an_error_and_the_figures_are_play_s(env):
    player = nesbot.attach(env, level=18, seed=4, max_frames=400)
    with pytest.raises(nesbot.NesbotError, match="has not started"):
        player.result()
    while player.stage == "menus":
        env.step(player.action())
    assert ram.decode(env.ram).level == 18 and 24_000 <= player.frame < 25_000
    while not player.done:
        env.step(player.action())
    result = player.result()
    assert result["frames"] == 400 and result["start_level"] == 18 and result["desyncs"] == 0
    assert player.stage == "over"
    with pytest.raises(nesbot.NesbotError, match="game is over"):
        player.action()
    player.max_frames = 500
    env.step(player.action())
    player.action()  # no step for this one
    with pytest.raises(nesbot.NesbotError, match="not stepped exactly once per"):
        player.action()
