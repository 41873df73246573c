"""Browser tests: the pages in a real headless Chromium (Debian's ``chromium`` package) driven by
the ``playwright`` package, against a real gunicorn (tests/e2e/server.py).

Without a browser these tests skip with the reason, unless ``WARLOG_REQUIRE_BROWSER=1`` (set by
.ci/run, which installs the browser when it is missing), when they fail. ``WARLOG_CHROMIUM``
names another Chromium binary. Screenshots go to ``WARLOG_SCREENSHOT_DIR`` (default
``var/screenshots``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.server import live_server

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("WARLOG_SCREENSHOT_DIR") or ROOT / "var" / "screenshots")
CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium")


def chromium_path() -> str | None:
    named = os.environ.get("WARLOG_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    for path in CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _no_browser() -> str | None:
    """None when a browser can be driven here, else why not."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"the playwright package is not installed ({exc}); pip install -e '.[test]'"
    if chromium_path() is None:
        return ("no Chromium found (apt-get install chromium, or set WARLOG_CHROMIUM); "
                ".ci/run installs it")
    return None


def require_browser() -> None:
    reason = _no_browser()
    if reason is None:
        return
    if os.environ.get("WARLOG_REQUIRE_BROWSER") == "1":
        pytest.fail(f"WARLOG_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        launched = p.chromium.launch(executable_path=chromium_path(), headless=True,
                                     args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory, browser):
    with live_server(tmp_path_factory.mktemp("pages"), WEB_CONCURRENCY="1",
                     WARLOG_STREAM_RESERVE="4", WARLOG_STREAM_POLL_SECONDS="0.2") as url:
        yield url


@pytest.fixture(scope="session")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


class Tab:
    """A page with every console error, failed request and uncaught exception collected (a CSP
    violation is a console error), so a test can assert there were none."""

    def __init__(self, context, page):
        self.context, self.page, self.errors = context, page, []
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        # A request cut short by leaving the page (ERR_ABORTED: a reload in flight, the open
        # stream) is normal; any other failed request is an error.
        page.on("requestfailed", lambda r: self.errors.append(f"request failed: {r.url} {r.failure}")
                if "ERR_ABORTED" not in (r.failure or "") else None)

    def _console(self, message) -> None:
        # A 4xx the page asked for on purpose (a refused order, a private game) is logged by
        # Chromium too; the page shows those itself. Anything else (a CSP violation) is an error.
        if message.type == "error" and "the server responded with a status of 4" not in message.text:
            self.errors.append(f"console {message.type}: {message.text}")

    def ready(self, timeout: float = 10_000) -> None:
        try:
            self.page.wait_for_selector("body[data-ready=true]", state="attached", timeout=timeout)
        except Exception as exc:
            raise AssertionError(f"{self.page.url} did not get ready: {exc}; errors: {self.errors}; "
                                 f"status: {self.page.text_content('#status')!r}") from None

    def goto(self, url: str) -> "Tab":
        self.page.goto(url)
        self.ready()
        return self


@pytest.fixture
def open_tab(browser):
    """open_tab(width=1280, height=900) -> Tab, in its own browser context (its own localStorage)."""
    contexts = []

    def make(width: int = 1280, height: int = 900) -> Tab:
        context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
        context.set_default_timeout(10_000)
        contexts.append(context)
        return Tab(context, context.new_page())

    yield make
    for context in contexts:
        context.close()
