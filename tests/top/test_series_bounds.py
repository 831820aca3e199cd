"""Series files with numbers no run writes (issue 40 L1): ``step_s: Infinity``, times near 1e308, values of
1.7e308 made `planner report` fail with a traceback, or print "IOPS rose nan%" (sums overflow to inf/nan). Such a
file is refused by the reader, so the point is reported without its series (the store hands `report` the same
file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_report_helpers import Exec, write_run

from planner.cli.main import main
from planner.errors import ParseError
from planner.timeseries import FORMAT, VERSION, read

RUN = "20260101T100000Z-fio"


def _series(**over: object) -> str:
    n = 30
    one = {"metric": "fio.iops", "unit": "IO/s", "source": "fio iops log", "labels": {"direction": "read"},
           "step_s": 1.0, "t": [float(i) for i in range(n)], "values": [5000.0 - 10 * i for i in range(n)]}
    one |= {"low": one["values"], "high": one["values"]} | over
    # json.dumps writes Infinity as Python's json reads it back
    return json.dumps({"format": FORMAT, "version": VERSION, "series": [one]})


HOSTILE = {
    "step Infinity": _series(step_s=float("inf")),
    "t near 1e308": _series(t=[1e308 - i * 1e292 for i in range(30)]),
    "values 1.7e308": _series(values=[1.7e308] * 30, low=[1.7e308] * 30, high=[1.7e308] * 30),
    "warmup 1e308": _series(warmup_s=1e308),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_report_of_a_series_with_absurd_numbers_has_no_traceback(case: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path, RUN, [Exec("plays[0].workloads[0]", "fio", "vio",
                                         {"series.json": (HOSTILE[case], "series")}, {"bs": "8k"}, 0, 0)],
                    [{"name": "violin", "hosts": ["vio"]}])
    with pytest.raises(ParseError):
        read(run / "artifacts/vio/exec000/series.json")
    code = main(["report", str(run)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err and (run / "report.md").is_file()
    words = (run / "report.md").read_text().lower()
    assert not {"nan%", "inf%", "infs", "nans", "+nan", "+inf"} & set(words.replace("|", " ").split()), words
    # and the point's missing chart is explained, not skipped in silence
    assert "series not read" in words and "artifacts/vio/exec000/series.json" in words, words
