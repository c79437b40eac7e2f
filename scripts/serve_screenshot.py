#!/usr/bin/env python3
"""Screenshot of the serving page (docs/img/serve.png) taken with Debian's headless chromium.

Serves MODEL on a free loopback port (in this process), pastes a test article (of DATA/test.jsonl.gz),
submits it with the page's defaults (the model's) or the options given, hovers the summary word
whose chunk attention is most peaked, and saves the page.

    .venv/bin/python scripts/serve_screenshot.py --model RUN_DIR [--doc 3] [--out docs/img/serve.png]
    .venv/bin/python scripts/serve_screenshot.py --model pubmed-model3 --data ../shared/data/pubmed \
        --doc 25 --out docs/img/page-long-paper.png     # a 6,966-word paper, 203 chunks
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
from pathlib import Path

import httpx
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from c2fsum.serving import create_app
from c2fsum.serving.background import BackgroundServer

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="shipped model name or run directory")
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "cnndm")
    p.add_argument("--doc", type=int, default=3, help="index of the test article (3)")
    p.add_argument("--beam", help="beam size (default: the model's, as the page shows it)")
    p.add_argument("--max-length", help="most summary tokens (default: the model's)")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "serve.png")
    a = p.parse_args()
    with gzip.open(a.data / "test.jsonl.gz", "rt", encoding="utf-8") as f:
        text = [json.loads(line)["article"] for _, line in zip(range(a.doc + 1), f, strict=False)][a.doc]

    opts = Options()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1700",
        "--hide-scrollbars",
    ):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=opts)
    try:
        with BackgroundServer(create_app(a.model)) as server:
            driver.get(server.url + "/")
            WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "beam").get_attribute("value"))
            area = driver.find_element(By.ID, "article")
            driver.execute_script("arguments[0].value = arguments[1];", area, text)
            for el_id, value in (("beam", a.beam), ("max-length", a.max_length)):
                if value is None:
                    continue
                el = driver.find_element(By.ID, el_id)
                el.clear()
                el.send_keys(value)
            driver.find_element(By.ID, "submit").click()
            WebDriverWait(driver, 120).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#summary .word"))
            body = {"text": text}
            if a.beam is not None:
                body["beam"] = int(a.beam)
            if a.max_length is not None:
                body["max_length"] = int(a.max_length)
            api = httpx.post(server.url + "/summarize", json=body, timeout=120).json()
            peaked = max(range(len(api["tokens"])), key=lambda t: max(api["attention"][t]))
            words = driver.find_elements(By.CSS_SELECTOR, "#summary .word")
            words[peaked].click()
            ActionChains(driver).move_to_element(words[peaked]).perform()
            driver.execute_script("window.scrollTo(0, 0);")  # the header and the form too
            ActionChains(driver).move_to_element(driver.find_element(By.TAG_NAME, "h1")).perform()  # pinned word
            a.out.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(a.out))
            print(f"hovered word {peaked} {api['tokens'][peaked]!r}; screenshot written to {a.out}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
