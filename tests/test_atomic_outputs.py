"""Every file rankscope writes is written whole or not at all (`rankscope.atomic`)."""

from __future__ import annotations

import os

import pytest

from rankscope.atomic import atomic_directory, atomic_path, write_atomically


def _leftovers(directory) -> list[str]:
    return sorted(name for name in os.listdir(directory) if name.startswith("."))


def test_a_text_replaces_the_old_file_whole(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    write_atomically(target, "new " * 50_000)
    assert target.read_text() == "new " * 50_000
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("stop", [KeyboardInterrupt, OSError])
def test_a_writer_stopped_leaves_the_old_file_and_no_temporary_file(tmp_path, stop):
    target = tmp_path / "out.parquet"
    target.write_text("old\n")
    with pytest.raises(stop):
        with atomic_path(target) as temporary:
            assert os.path.dirname(temporary) == str(tmp_path)  # beside: the rename is atomic
            assert temporary.endswith(".parquet")  # the writer sees the target's suffix
            with open(temporary, "w") as part:
                part.write("a part")
            raise stop()
    assert target.read_text() == "old\n"
    assert _leftovers(tmp_path) == []


def test_a_directory_is_swapped_in_whole(tmp_path):
    target = tmp_path / "folds"
    target.mkdir()
    for name in ("u1.base", "u1.test", "u2.base", "u2.test", "u3.base", "u3.test"):
        (target / name).write_text("old\n")
    with atomic_directory(target) as built:
        (built / "u1.base").write_text("new\n")
        (built / "u1.test").write_text("new\n")
        assert sorted(os.listdir(target)) != ["u1.base", "u1.test"]  # not yet in place
    # the older split's third and second folds are gone: never mixed with the new one
    assert sorted(os.listdir(target)) == ["u1.base", "u1.test"]
    assert (target / "u1.base").read_text() == "new\n"
    assert _leftovers(tmp_path) == []


def test_a_directory_stopped_leaves_the_old_one(tmp_path):
    target = tmp_path / "folds"
    target.mkdir()
    (target / "u1.base").write_text("old\n")
    with pytest.raises(KeyboardInterrupt):
        with atomic_directory(target) as built:
            (built / "u1.base").write_text("new\n")
            raise KeyboardInterrupt
    assert os.listdir(target) == ["u1.base"] and (target / "u1.base").read_text() == "old\n"
    assert _leftovers(tmp_path) == []
