"""A point's series travel through the store (docs/series.md): pushed, pulled back byte for byte so `report`
from the store draws the same charts over time, and checked both ways, since a pushed folder and a store row
are data. Both backends, as every store test (``store_url`` from tests/pg_cluster.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_report_helpers import Exec, write_run

from planner.cli.main import main
from planner.store import open_store, parse_store_url
from planner.timeseries import MAX_BUCKETS, TimeSeries, dumps, read

RUN = "20260101T100000Z-fio"
SERIES_REL = "artifacts/vio/exec000/series.json"


def _series(n: int) -> bytes:
    t = tuple(float(i) for i in range(n))
    v = tuple(5000.0 - 10 * i for i in range(n))
    return dumps([TimeSeries("fio.iops", "IO/s", "fio iops log", 1.0, t, v, v, v, (("direction", "read"),))])


def _run(root: Path, series: bytes) -> Path:
    text = series.decode()
    return write_run(root, RUN, [Exec("plays[0].workloads[0]", "fio", "vio", {"series.json": (text, "series")},
                                      {"bs": "8k"}, 0, 0)], [{"name": "violin", "hosts": ["vio"]}])


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.slow
def test_a_pulled_run_gets_its_series_back(store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(capsys, "store", "migrate", "--store", store_url)[0] == 0
    run = _run(tmp_path / "a", _series(30))
    assert _cli(capsys, "store", "push", str(run), "--store", store_url)[0] == 0
    code, err = _cli(capsys, "store", "pull", RUN, "--store", store_url, "--runs-dir", str(tmp_path / "b"))
    assert code == 0, err
    pulled = tmp_path / "b" / RUN
    assert (pulled / SERIES_REL).read_bytes() == (run / SERIES_REL).read_bytes()
    assert read(pulled / SERIES_REL)[0].values[:2] == (5000.0, 4990.0)
    assert json.loads((pulled / "pulled.json").read_text())["artifacts_not_kept"] == []


@pytest.mark.slow
def test_a_series_file_over_the_bound_is_not_stored(store_url: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(capsys, "store", "migrate", "--store", store_url)[0] == 0
    run = _run(tmp_path / "a", _series(MAX_BUCKETS + 1))
    assert _cli(capsys, "store", "push", str(run), "--store", store_url)[0] == 0
    with open_store(parse_store_url(store_url, Path("."))) as st:
        assert st._exec("SELECT COUNT(*) FROM series").fetchone()[0] == 0
    assert _cli(capsys, "store", "pull", RUN, "--store", store_url, "--runs-dir", str(tmp_path / "b"))[0] == 0
    assert not (tmp_path / "b" / RUN / SERIES_REL).exists()
    assert json.loads((tmp_path / "b" / RUN / "pulled.json").read_text())["artifacts_not_kept"] == [SERIES_REL]


@pytest.mark.slow
def test_a_tampered_series_row_is_not_written_back(store_url: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(capsys, "store", "migrate", "--store", store_url)[0] == 0
    run = _run(tmp_path / "a", _series(30))
    assert _cli(capsys, "store", "push", str(run), "--store", store_url)[0] == 0
    with open_store(parse_store_url(store_url, Path("."))) as st, st._tx():
        st._exec("UPDATE series SET content = ? WHERE run_id = ?", (b'{"format": "planner-series", "x": 1}', RUN))
        st._exec("INSERT INTO series VALUES (?, ?, ?)", (RUN, "../../escaped.json", _series(3)))
    assert _cli(capsys, "store", "pull", RUN, "--store", store_url, "--runs-dir", str(tmp_path / "b"))[0] == 0
    assert not (tmp_path / "b" / RUN / SERIES_REL).exists()
    assert not (tmp_path / "escaped.json").exists() and not (tmp_path / "b" / "escaped.json").exists()
    assert json.loads((tmp_path / "b" / RUN / "pulled.json").read_text())["artifacts_not_kept"] == [SERIES_REL]


@pytest.mark.slow
def test_report_from_the_store_draws_the_same_charts_over_time(store_url: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(capsys, "store", "migrate", "--store", store_url)[0] == 0
    run = _run(tmp_path / "a", _series(30))
    assert _cli(capsys, "store", "push", str(run), "--store", store_url)[0] == 0
    code, err = _cli(capsys, "report", RUN, "--store", store_url, "--runs-dir", str(tmp_path / "b"))
    assert code == 0, err
    assert _cli(capsys, "report", str(run))[0] == 0
    original = (run / "report.md").read_text()
    again = (tmp_path / "b" / RUN / "report.md").read_text()
    assert "over time" in again and list((tmp_path / "b" / RUN / "charts").glob("time-*.svg"))
    assert again.replace(str(tmp_path / "b"), str(tmp_path / "a")) == original
