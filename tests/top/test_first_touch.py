"""First touch, as a new user meets planner: a wheel installed (not editable) in a fresh venv rehearses the
headline plan and renders its report; the report's HTML page opens in a real browser (headless Chromium).

The wheel is built from a copy of the sources (no build/ or egg-info left in the checkout) and installed with
--no-deps; the fresh venv borrows this interpreter's site-packages for the third-party dependencies through a
.pth file, so the test runs offline. What it proves is the wheel itself: templates, stand-ins and kits are
package data, and nothing is read from the source tree (planner is imported from the venv, run outside the
checkout). That every import is a declared dependency is checked against the wheel's metadata.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and Path(p).is_file()), None)
INTERNAL_KEY = re.compile(r"\w+\{\w+=[^}]*\}")  # physical_read_iops{basis=requests}
pytestmark = pytest.mark.slow


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 600) -> str:
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"{' '.join(argv)} -> {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p.stdout


def _build_wheel(tmp: Path) -> Path:
    src = tmp / "src"
    shutil.copytree(ROOT / "planner", src / "planner", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for f in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / f, src / f)
    try:  # offline: the build backend this interpreter already has (setuptools < 70.1 needs `wheel` too)
        import setuptools  # noqa: F401
        import wheel  # noqa: F401

        isolation = ["--no-build-isolation"]
    except ImportError:
        isolation = []
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", *isolation, "-w", str(tmp / "dist"), str(src)],
         tmp)
    return next((tmp / "dist").glob("planner-*.whl"))


@pytest.fixture(scope="module")
def wheel_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("first_touch")
    wheel = _build_wheel(tmp)
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp)
    py = venv / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], tmp)
    purelib = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp).strip())
    # dependencies from this interpreter (listed after the venv's own site-packages, so the wheel's planner wins)
    (purelib / "_deps_from_test_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp / "work"
    for d in ("plans", "inventory"):
        shutil.copytree(ROOT / d, work / d, ignore=shutil.ignore_patterns("reports"))
    env = {**os.environ, "PLANNER_REHEARSE_TRANSPORT": "local", "PATH": f"{venv / 'bin'}:{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    where = _run([str(py), "-c", "import planner; print(planner.__file__)"], work, env).strip()
    out = _run([str(venv / "bin" / "planner"), "apply", "--rehearse", "plans/violin_vs_exadata.yaml",
                "--runs-dir", "runs", "-e", "run_time=30"], work, env)
    run = next(p for p in (work / "runs").iterdir() if p.is_dir())
    assert "report copy" in out
    return {"wheel": wheel, "venv": venv, "work": work, "run": run, "where": Path(where)}


def test_the_wheel_declares_what_the_report_imports(wheel_run: dict[str, Path]) -> None:
    with zipfile.ZipFile(wheel_run["wheel"]) as z:
        names = z.namelist()
        meta = next(z.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    requires = {re.split(r"[\s<>=;\[]", line.split(":", 1)[1].strip())[0].lower()
                for line in meta.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line}
    assert {"jinja2", "matplotlib", "markdown-it-py", "pyyaml", "rich", "paramiko"} <= requires
    assert "planner/kinds/slob/slob_comparison.md.j2" in names  # templates are package data, a kind's in its folder
    assert any(n.startswith("planner/rehearsal/standins/") for n in names)
    # a kind's folder ships its files beside its code: its stand-in program, its kit, its report partial
    assert {"planner/kinds/orion/bin/orion", "planner/kinds/slb/kit/slb.c",
            "planner/kinds/slb/report.md.j2"} <= set(names)


def test_a_wheel_install_rehearses_the_headline_plan_and_reports(wheel_run: dict[str, Path]) -> None:
    assert wheel_run["venv"] in wheel_run["where"].parents, wheel_run["where"]  # not the checkout
    report = wheel_run["work"] / "plans" / "reports" / "violin_vs_exadata.md"
    text = report.read_text()
    lines = text.splitlines()
    assert lines[0].startswith("# SLOB comparison") and "SIMULATED" in text
    assert text.index("## Result") < text.index("## Systems side by side") < text.index("## Details")
    # one screen for the answer (with each system's validity and the world it simulated), a few for the details
    assert len(lines) <= 135, len(lines)
    assert not INTERNAL_KEY.findall(text), INTERNAL_KEY.findall(text)[:5]
    # one chart per headline metric, each comparing the three systems, with a name a person can read
    charts = sorted((wheel_run["run"] / "charts").glob("*.svg"))
    assert "physical-read-iops-by-slob-reader-sessions.svg" in [p.name for p in charts], charts
    assert len(charts) == text.count("![") == len(set(re.findall(r"!\[[^]]*\]\(([^)]+)\)", text))), text  # each once
    for chart in charts:
        svg = chart.read_text()
        assert all(system in svg for system in ("Exadata X2-8", "Violin 3000, 8 LUNs", "Violin 3000, 16 LUNs"))
    svg = (wheel_run["run"] / "charts" / "physical-read-iops-by-slob-reader-sessions.svg").read_text()
    assert "Physical read IOPS (IOPS)" in svg and "SLOB reader sessions" in svg  # axes in words, with units


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", head[16:24])
    return w, h


PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.images];
  const r = document.getElementById("result").getBoundingClientRect();
  document.body.setAttribute("data-probe", JSON.stringify({
    images: imgs.length, sizes: imgs.map(i => [i.complete, i.naturalWidth, i.naturalHeight]),
    result_top: r.top, viewport: window.innerHeight,
    first_item_bottom: document.querySelector("#result + ul li").getBoundingClientRect().bottom}));
});
</script>
"""


def _chromium(args: list[str], profile: Path) -> str:
    assert CHROMIUM is not None
    argv = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={profile}", "--window-size=1280,1000", *args]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (CI installs Debian's chromium package)")
def test_the_html_report_loads_in_chromium_with_every_chart_and_the_result_first(
        wheel_run: dict[str, Path], tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    _run([str(wheel_run["venv"] / "bin" / "planner"), "report", str(wheel_run["run"]), "--format", "html",
          "-o", str(page)], wheel_run["work"])
    text = page.read_text()
    assert not re.findall(r'<img[^>]+src="(?!data:)', text)  # self-contained: every chart inline
    shot = tmp_path / "first-screen.png"
    _chromium([f"--screenshot={shot}", page.as_uri()], tmp_path / "profile1")
    assert _png_size(shot) == (1280, 1000) and shot.stat().st_size > 20_000  # a page was drawn, not a blank
    probe = tmp_path / "probe.html"
    probe.write_text(text.replace("</body>", PROBE + "</body>"))
    dom = _chromium(["--virtual-time-budget=10000", "--dump-dom", probe.as_uri()], tmp_path / "profile2")
    found = re.search(r'data-probe="([^"]*)"', dom)
    assert found, dom[-2000:]
    data = json.loads(html.unescape(found.group(1)))
    assert data["images"] == len(list((wheel_run["run"] / "charts").glob("*.svg"))) > 0
    assert all(ok and w > 0 and h > 0 for ok, w, h in data["sizes"]), data["sizes"]  # none broken
    assert 0 <= data["result_top"] < data["first_item_bottom"] <= data["viewport"]  # Result on the first screen
