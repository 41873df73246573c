"""What the browser tests do on the pages, in the pages' own terms."""

from __future__ import annotations

import re
from pathlib import Path


def shoot(page, path: Path) -> None:
    """A full-page screenshot from the top (sticky bars otherwise land mid-page)."""
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=True)


def pick_order(page, kind: str) -> None:
    page.locator(f'#kinds input[data-kind="{kind}"]').check()


def caught_up(page) -> None:
    """Wait until the page shows the game's current version (its stream-triggered reload is done)."""
    version = page.evaluate("""async () => {
        const id = document.body.dataset.gameId;
        const r = await Warlog.api('/api/v1/games/' + id, {token: Warlog.keys.reader(id)});
        return String(r.body.version); }""")
    page.wait_for_function("v => document.body.dataset.version === v", arg=version)


def send(page, expect_type: str | None = None) -> None:
    """Send the order in the form and wait for its result (or the refusal in the status line)."""
    before = page.locator("#result").get_attribute("data-version") if page.locator("#result").count() else None
    page.click("#send")
    if expect_type:
        page.wait_for_function(
            "([t, v]) => { const r = document.getElementById('result');"
            " return document.querySelector('#status.error') ||"
            " (r && r.dataset.version !== v && r.querySelector(`li[data-type='${t}']`)); }",
            arg=[expect_type, before or ""])
        assert not page.locator("#status.error").count(), page.text_content("#status")


def hash_seq(page) -> int:
    """The seq in the page's address. Read in the page: playwright's ``page.url`` learns of a
    ``history.replaceState`` only later, so right after a key press it may still be the old one."""
    where = page.evaluate("location.href")
    m = re.search(r"#seq=(\d+)$", where)
    assert m, where
    return int(m.group(1))


def no_horizontal_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    view = page.evaluate("window.innerWidth")
    assert width <= view + 1, f"the page is {width}px wide in a {view}px viewport"


def labels_missing(page) -> list[str]:
    """The form controls shown on the page that no label names (by wrapping, for= or aria-label)."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('input, select, textarea'))
        .filter(el => el.type !== 'hidden' && el.offsetParent !== null
                && !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
        .map(el => el.outerHTML.slice(0, 120))""")
