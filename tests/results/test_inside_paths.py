"""``measure._inside``: a path results.json names is read only inside the run folder. Its os.path form (issue 47:
pathlib's parsing was most of a push's read of a folder) keeps Path.resolve's answers, loops included."""

from __future__ import annotations

from pathlib import Path

from planner.results.measure import _inside


def test_inside_answers_as_path_resolve(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "artifacts").mkdir(parents=True)
    (run / "artifacts" / "a.txt").write_text("x")
    (tmp_path / "secret").write_text("s")
    (run / "artifacts" / "out").symlink_to(tmp_path / "secret")
    (run / "artifacts" / "in").symlink_to(run / "artifacts" / "a.txt")
    (run / "artifacts" / "loop1").symlink_to(run / "artifacts" / "loop2")
    (run / "artifacts" / "loop2").symlink_to(run / "artifacts" / "loop1")
    real = run.resolve()
    assert _inside(run, "artifacts/a.txt") == real / "artifacts" / "a.txt"
    assert _inside(run, "artifacts/in") == real / "artifacts" / "a.txt"
    assert _inside(run, "artifacts/missing.txt") == real / "artifacts" / "missing.txt"  # listed, not there
    for bad in ("artifacts/out", "../secret", "/etc/passwd", "artifacts/loop1", "", ".", "a\x00b", "artifacts/.."):
        assert _inside(run, bad) is None, bad
    assert _inside(run, 3) is None  # type: ignore[arg-type]  # a crafted results.json
