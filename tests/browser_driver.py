"""Headless Chromium driven by selenium (Debian's chromium and chromium-driver) for the tests that need a real
browser; `webdriver` is None without the test extra (conftest's `browser` fixture starts one per test)."""

import shutil

__all__ = ["CHROMEDRIVER", "CHROMIUM", "FLAGS", "WAIT", "By", "Service", "WebDriverWait", "webdriver"]

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:         # the test extra not installed
    webdriver = Service = By = WebDriverWait = None

# As root, in a sandbox with no network beyond loopback: no sandboxing, and nothing that calls home.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,1000")
WAIT = 20       # seconds a page may take to show what is looked for
