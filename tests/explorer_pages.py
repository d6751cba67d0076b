"""The explorer's pages in Chromium, for browser tests: their marks, the explorer's URL, waiting for an element,
and amounts as the pages write them.
"""

import pytest

from browser_driver import CHROMEDRIVER, CHROMIUM, WAIT, By, WebDriverWait, webdriver

BROWSER_MARKS = [
    pytest.mark.slow,
    pytest.mark.skipif(webdriver is None or not CHROMIUM or not CHROMEDRIVER,
                       reason="browser tests need selenium (pip install '.[test]') and Debian's chromium and "
                              "chromium-driver (apt-get install -y chromium chromium-driver; .ci/run installs them)"),
]


def base(node):
    return f"http://127.0.0.1:{node.port_of('explorer')}/"


def visit(driver, url, css, shot=None, text=None):
    """Open `url`, wait for an element matching `css` (holding `text`, if given); screenshot; the element."""
    driver.get(url)
    return wait(driver, css, shot, text)


def wait(driver, css, shot=None, text=None):
    def found(d):
        for element in d.find_elements(By.CSS_SELECTOR, css):
            if text is None or text in element.text:
                return element
        return False

    element = WebDriverWait(driver, WAIT).until(found, f"nothing matched {css!r} ({text!r}) at {driver.current_url}")
    if shot:
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        driver.save_screenshot(str(driver.shots / f"{shot}.png"))
    return element


def units(wei, decimals=18):
    """As the page writes an amount of the base denom in its display unit (app.js units())."""
    whole, fraction = divmod(wei, 10**decimals)
    return f"{whole:,}" + (f".{fraction:0{decimals}d}".rstrip("0") if fraction else "")
