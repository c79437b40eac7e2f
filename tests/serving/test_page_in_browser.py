"""The web page end to end in a real headless browser (Debian's chromium via Selenium).

Skipped, with the reason, only where no browser is installed; `make test` installs one
(.ci/install-browser.sh). Selenium is pointed at /usr/bin/chromedriver, so Selenium Manager never
tries to download anything.
"""

from __future__ import annotations

import re
import shutil

import httpx
import pytest

from c2fsum.serving import ServeSettings, create_app
from c2fsum.serving.background import BackgroundServer

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - the dev extra installs it
    webdriver = None

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def browser():
    needs = (
        ("selenium (pip install -e '.[dev]')", webdriver is not None),
        ("chromium", CHROMIUM),
        ("chromedriver (chromium-driver)", CHROMEDRIVER),
    )
    missing = [name for name, ok in needs if not ok]
    if missing:
        pytest.skip(
            f"no headless browser: {', '.join(missing)} not installed; `make test` installs them "
            f"(.ci/install-browser.sh: apt-get install chromium chromium-driver)"
        )
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1400",
    ):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def live(served_run):
    with BackgroundServer(create_app(served_run, settings=ServeSettings(max_beam=4))) as server:
        yield server


def _set(driver, element_id: str, value: str) -> None:
    el = driver.find_element(By.ID, element_id)
    el.clear()
    el.send_keys(value)


def _chunk_weights(driver) -> list[float]:
    return [float(li.get_attribute("data-weight")) for li in driver.find_elements(By.CSS_SELECTOR, "#chunks li")]


def _alpha(css_color: str) -> float:
    nums = re.findall(r"[\d.]+", css_color)
    return float(nums[3]) if len(nums) == 4 else (1.0 if nums else 0.0)


def test_page_summarizes_an_article_and_highlights_what_each_word_read(browser, live, articles):
    text = articles[0]
    browser.get(live.url + "/")
    WebDriverWait(browser, 15).until(lambda d: "model2" in d.find_element(By.ID, "model-info").text)
    area = browser.find_element(By.ID, "article")
    area.send_keys(text[:120])  # typed like a person, then the whole article pasted at once
    browser.execute_script("arguments[0].value = arguments[1];", area, text)
    _set(browser, "beam", "2")
    _set(browser, "max-length", "12")
    browser.find_element(By.ID, "submit").click()
    WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#summary .word"))

    # what the page shows is what the API answers for the same request
    api = httpx.post(
        live.url + "/summarize", json={"text": text, "beam": 2, "max_length": 12, "block_trigrams": True}, timeout=60
    ).json()
    words = browser.find_elements(By.CSS_SELECTOR, "#summary .word")
    assert [w.text for w in words] == api["tokens"] and len(words) >= 6
    chunks = browser.find_elements(By.CSS_SELECTOR, "#chunks li")
    assert len(chunks) == len(api["chunks"]) > 4  # the whole article, more than the trained 4 x 20 grid
    for li, chunk in zip(chunks, api["chunks"], strict=True):
        assert li.text.endswith(chunk)
    # the heatmap: a header row, then one row per summary word with one cell per chunk
    rows = browser.find_elements(By.CSS_SELECTOR, "#heatmap tr")
    assert len(rows) == len(api["tokens"]) + 1
    assert all(len(r.find_elements(By.TAG_NAME, "td")) == len(api["chunks"]) for r in rows[1:])
    assert "Error" not in browser.find_element(By.ID, "status").text

    for t in (len(words) - 1, 1):  # hover: the chunks are shaded by that word's attention
        ActionChains(browser).move_to_element(words[t]).perform()
        WebDriverWait(browser, 5).until(lambda d, t=t: "active" in words[t].get_attribute("class"))
        weights = _chunk_weights(browser)
        assert weights == pytest.approx(api["attention"][t], abs=1e-4)
        top = max(range(len(chunks)), key=lambda i: weights[i])
        assert [("top" in li.get_attribute("class")) for li in chunks] == [i == top for i in range(len(chunks))]
        alphas = [_alpha(li.value_of_css_property("background-color")) for li in chunks]
        assert alphas[top] == pytest.approx(0.6, abs=0.01)  # the most-read chunk gets the strongest shade
        assert all(a == pytest.approx(0.6 * w / weights[top], abs=0.01) for a, w in zip(alphas, weights, strict=True))
        assert "%" in chunks[top].find_element(By.CLASS_NAME, "weight").text

    # click pins a word: moving the mouse away keeps its highlights
    words[1].click()
    ActionChains(browser).move_to_element(browser.find_element(By.TAG_NAME, "h1")).perform()
    assert "pinned" in words[1].get_attribute("class")
    assert _chunk_weights(browser) == pytest.approx(api["attention"][1], abs=1e-4)


def test_page_shows_the_servers_error(browser, live):
    browser.get(live.url + "/")
    browser.find_element(By.ID, "article").send_keys("The bridge will close for three months.")
    _set(browser, "beam", "9")  # the server allows 4
    browser.find_element(By.ID, "submit").click()
    status = browser.find_element(By.ID, "status")
    WebDriverWait(browser, 30).until(lambda d: "Error" in status.text)
    assert status.text == "Error 422: beam: 9 is larger than this server allows (4)"
    assert "error" in status.get_attribute("class")
