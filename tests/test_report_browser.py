"""The HTML report in a real headless Chromium (Debian's ``chromium`` and ``chromium-driver``,
driven by Selenium): it loads with no console errors and no network request, every figure is
drawn with a non-zero size, and the metrics read on the page are those ``nbayes evaluate --json``
prints. Skipped, saying why, when the browser, its driver or Selenium is absent (``.ci/run``
installs them where apt-get works)."""

from __future__ import annotations

import json
import shutil

import polars as pl
import pytest

import nbayes

pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is absent")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")

from _report_data import fitted_by_the_cli  # noqa: E402

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


@pytest.fixture
def browser():
    if BROWSER is None or DRIVER is None:
        pytest.skip(
            "no headless browser: the Debian packages chromium and chromium-driver are not "
            "installed (apt-get install -y chromium chromium-driver)"
        )
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1200,900",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_report_in_a_real_browser(tmp_path, capsys, browser):
    from selenium.webdriver.common.by import By

    model_file, test_csv, evaluated = fitted_by_the_cli(tmp_path, capsys)
    page = tmp_path / "report.html"
    nbayes.report(nbayes.load(model_file), pl.read_csv(test_csv), target="grade", path=page)
    url = page.resolve().as_uri()
    browser.get(url)
    assert browser.execute_script("return document.readyState") == "complete"
    assert browser.title == "NaiveBayes report"

    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []

    requested = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requested.append(message["params"]["request"]["url"])
    assert requested, "the performance log recorded no request at all (not even the page)"
    assert [u for u in requested if not u.startswith("data:")] == [url]

    figures = browser.find_elements(By.CSS_SELECTOR, "figure.plot svg")
    assert len(figures) >= 5 + 3
    for figure in figures:
        size = figure.size
        assert size["width"] > 0 and size["height"] > 0

    def shown(element_id: str) -> str:
        return browser.find_element(By.ID, element_id).text

    from nbayes.evaluation import SCALARS

    figures = [key for key in SCALARS if evaluated.get(key) is not None]
    assert {"accuracy", "log_loss", "brier", "roc_auc"} <= set(figures)
    for key in figures:
        assert shown(f"metric-{key}") == f"{evaluated[key]:.4f}", key
    for i in range(len(evaluated["classes"])):
        for name in ("precision", "recall", "f1"):
            assert shown(f"{name}-{i}") == f"{evaluated[name][i]:.4f}"
        assert shown(f"support-{i}") == str(evaluated["support"][i])
