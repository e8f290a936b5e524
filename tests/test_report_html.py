"""report_html: one static page, checked as text and in a real headless browser (chromium)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import lodestar_polars as lp

pytest.importorskip("matplotlib", reason="report_html needs the report extra (matplotlib)")


def _payload(*, train: bool = True) -> dict[str, Any]:
    """A real payload read back from JSON: three objectives, the floor, a bootstrap over users."""
    back: dict[str, Any] = json.loads(json.dumps(_report(train=train)))  # as from the CLI's JSON
    return back


def _report(*, train: bool = True) -> lp.RankingReport:
    """What ranking_report returns: three objectives, the floor, a bootstrap over users."""
    rng = np.random.default_rng(0)
    n, m = 40, 12
    log = pl.DataFrame(
        {
            "user": np.repeat(np.arange(n), m),
            "item": np.tile(np.arange(m), n),
            "score": rng.integers(0, 10, n * m) / 10,
            "clicked": rng.random(n * m) < 0.15,
        }
    )
    floor = pl.DataFrame({"item": rng.integers(0, m, 300)}) if train else None
    return lp.ranking_report(
        log,
        by="user",
        item="item",
        y_true="clicked",
        y_score="score",
        k=5,
        objectives=("accuracy", "balanced", "coverage"),
        train=floor,
        n_resamples=100,
    )


class _Dom(HTMLParser):
    """Collects element ids, tag counts and the text of the parsed page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}
        self.tags: dict[str, int] = {}
        self.stack: list[str] = []
        self.text: list[str] = []
        self.inside: dict[str, list[str]] = {}
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        named = dict(attrs)
        if named.get("id"):
            self.ids[str(named["id"])] = tag
        for key in ("src", "href"):
            if named.get(key):
                self.links.append(str(named[key]))
        for open_id in self.stack:
            self.inside.setdefault(open_id, []).append(tag)
        if named.get("id") and tag in ("table", "figure"):
            self.stack.append(str(named["id"]))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("table", "figure") and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(text: str) -> _Dom:
    dom = _Dom()
    dom.feed(text)
    return dom


def _check_page(dom: _Dom, payload: dict[str, Any]) -> None:
    """The tables and figures the page promises, with the payload's numbers."""
    assert {"protocol", "micro", "macro", "uncertainty", "tradeoff", "intervals"} <= set(dom.ids)
    assert dom.ids["tradeoff"] == "figure"
    assert "svg" in dom.inside["tradeoff"]
    assert "svg" in dom.inside["intervals"]
    micro_rows = dom.inside["micro"].count("tr")
    assert micro_rows == 1 + len(payload["objectives"]["accuracy"]["micro"])  # header + metrics
    assert dom.inside["uncertainty"].count("tr") == 1 + len(payload["uncertainty"]["model"])
    text = " ".join(dom.text)
    assert f"{payload['objectives']['coverage']['micro']['ndcg@5']:.4f}" in text
    assert f"{payload['baselines']['global_pop']['macro']['catalog_coverage']:.4f}" in text
    diff = payload["uncertainty"]["baselines"]["global_pop"]["difference"]["hit@5"]
    assert f"[{diff['ci_low']:.4f}, {diff['ci_high']:.4f}]" in text
    assert "model − global_pop" in text
    assert "Accuracy vs coverage over the popularity discount α" in text  # the figure's own text
    assert "accuracy (α = 0)" in text
    assert "coverage (α = 1)" in text


def test_the_page_holds_the_tables_and_figures(tmp_path: Path) -> None:
    """Parsed as written: every section, the payload's numbers, nothing fetched from outside."""
    payload = _payload()
    path = lp.report_html(payload, tmp_path / "report.html")
    assert path == tmp_path / "report.html"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # one file
    page = path.read_text(encoding="utf-8")
    dom = _parse(page)
    _check_page(dom, payload)
    assert dom.links == []
    assert "<script" not in page
    assert re.findall(r"url\((?!#)", page) == []  # only the SVG's own clip paths
    assert dom.tags["svg"] == 2


def test_the_report_object_and_its_payload_give_one_page(tmp_path: Path) -> None:
    """report_html takes the RankingReport or its plain dict; to_html is the same call."""
    report = _report()
    assert type(report) is lp.RankingReport
    from_object = lp.report_html(report, tmp_path / "object.html")
    from_method = report.to_html(tmp_path / "method.html")
    from_dict = lp.report_html(report.to_dict(), tmp_path / "dict.html")
    from_json = lp.report_html(json.loads(report.to_json()), tmp_path / "json.html")
    assert from_method == tmp_path / "method.html"
    page = from_object.read_text(encoding="utf-8")
    assert from_method.read_text(encoding="utf-8") == page
    assert from_dict.read_text(encoding="utf-8") == page
    assert from_json.read_text(encoding="utf-8") == page
    _check_page(_parse(page), report)
    titled = report.to_html(tmp_path / "titled.html", title="Run 7")
    assert "<title>Run 7</title>" in titled.read_text(encoding="utf-8")


def test_without_baseline_or_uncertainty_the_page_says_so(tmp_path: Path) -> None:
    """No floor: a note instead of a comparison; no intervals below two units."""
    payload = _payload(train=False)
    payload["uncertainty"] = None
    dom = _parse(lp.report_html(payload, tmp_path / "r.html").read_text(encoding="utf-8"))
    assert {"no-baseline", "no-uncertainty", "micro", "macro", "tradeoff"} <= set(dom.ids)
    assert "intervals" not in dom.ids
    assert dom.tags["svg"] == 1


def test_a_percentile_block_is_marked(tmp_path: Path) -> None:
    """A block with alpha null (ranked by percentile) is labelled so, not put on the α curve."""
    payload = _payload()
    payload["objective_alpha"]["balanced"] = None
    text = " ".join(_parse(lp.report_html(payload, tmp_path / "r.html").read_text()).text)
    assert "balanced (percentile)" in text


@pytest.mark.parametrize(
    ("payload", "error", "match"),
    [
        ([1, 2], TypeError, r"'payload' must be the dict lp.ranking_report returns; got list"),
        ({"objectives": {}}, ValueError, r"the payload lacks 'objective_alpha', 'baselines'"),
    ],
)
def test_a_bad_payload_is_a_sentence(tmp_path: Path, payload: Any, error: Any, match: str) -> None:
    """Not a dict, or a dict missing the report's keys."""
    with pytest.raises(error, match=match):
        lp.report_html(payload, tmp_path / "r.html")


def test_without_matplotlib_the_error_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """matplotlib is an optional extra; its absence is an ImportError naming it."""
    payload = _payload()
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'lodestar-polars\[report\]'"):
        lp.report_html(payload, tmp_path / "r.html")


def test_importing_the_package_does_not_import_matplotlib() -> None:
    """A plain import stays light: matplotlib is imported only inside report_html."""
    code = "import sys, lodestar_polars; print('matplotlib' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "False"


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    reason = "chromium is not installed (apt-get install -y chromium); .ci/run installs it"
    if os.environ.get("LODESTAR_POLARS_REQUIRE_BROWSER"):
        pytest.fail(reason)
    pytest.skip(reason)


def _browser(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    command = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=240, check=True)


def test_the_page_in_a_headless_browser(tmp_path: Path) -> None:
    """chromium loads the page offline; its DOM holds the tables and SVG figures; it renders."""
    payload = _payload()
    path = lp.report_html(payload, tmp_path / "report.html")
    dom_text = _browser("--dump-dom", path.as_uri(), profile=tmp_path / "profile").stdout
    dom = _parse(dom_text)
    _check_page(dom, payload)
    assert dom.tags["svg"] == 2
    shot = tmp_path / "shot.png"
    _browser(
        f"--screenshot={shot}",
        "--window-size=1200,2400",
        "--hide-scrollbars",
        path.as_uri(),
        profile=tmp_path / "profile",
    )
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000  # a rendered page, not a blank one


def test_the_page_opens_with_the_decision(tmp_path: Path) -> None:
    """One sentence, verdict and interval included, before the protocol table."""
    payload = _payload()
    page = lp.report_html(payload, tmp_path / "r.html").read_text(encoding="utf-8")
    dom = _parse(page)
    assert dom.ids["decision"] == "p"
    assert page.index('id="decision"') < page.index('id="protocol"')
    assert page.index('id="decision"') < page.index("<h2>")  # before every section
    gap = payload["uncertainty"]["baselines"]["global_pop"]["difference"]["ndcg@5"]
    sentence = payload["decision"]["sentence"]
    assert f"[{gap['ci_low']:+.4f}, {gap['ci_high']:+.4f}]" in sentence
    words = {"model_ahead": "Model ahead", "baseline_ahead": "Baseline ahead"}
    assert sentence.startswith(words.get(gap["verdict"], "Undecided") + ": on ndcg@5 ")
    assert sentence in " ".join(dom.text)
    # a payload read back without the key (an older JSON) gets the same sentence
    older = {key: value for key, value in payload.items() if key != "decision"}
    again = lp.report_html(older, tmp_path / "older.html").read_text(encoding="utf-8")
    assert sentence in " ".join(_parse(again).text)


def test_k_at_least_every_list_length_is_said_on_the_page(tmp_path: Path) -> None:
    """The bundled example at k=10: the note is shown; no [1, 1] interval, no 'undecided'."""
    from importlib import resources

    log = pl.read_csv(str(resources.files("lodestar_polars") / "data" / "example_implicit.csv"))
    train = log.filter(pl.col("clicked") == 1).select("item")
    payload = lp.ranking_report(
        log, by="user", item="item", y_score="score", y_true="clicked", k=10, train=train,
        n_resamples=50,
    )  # fmt: skip
    assert payload["objectives"]["accuracy"]["micro"]["hit@10"] == 1.0
    page = lp.report_html(payload, tmp_path / "r.html").read_text(encoding="utf-8")
    text = " ".join(_parse(page).text)
    assert payload["notes"][0] in text
    assert "hit@10 is 1 by construction" in text
    assert "[1.0000, 1.0000]" not in text
    assert "[0.0000, 0.0000]" not in text
    row = re.search(r"<tr><td>hit@10</td>.*?</tr>", page)
    assert row is not None
    assert "by construction" in row.group(0)
    assert "undecided" not in row.group(0)
