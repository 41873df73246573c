"""/api/docs in Chromium under the policy api/openapi.py gives it (DOCS_CSP): its inline style
applies, and nothing breaks the policy (a violation is a console error, collected by Tab)."""

from __future__ import annotations

import pytest

from api.openapi import DOCS_CSP

pytestmark = pytest.mark.slow


def test_the_api_docs_page_is_styled_within_its_policy(server, open_tab):
    tab = open_tab()
    response = tab.page.goto(f"{server}/api/docs")
    assert response.status == 200 and response.headers["content-security-policy"] == DOCS_CSP
    assert response.headers["x-content-type-options"] == "nosniff"
    margin = tab.page.evaluate("() => getComputedStyle(document.body).marginTop")
    assert margin == "0px"  # the inline <style> applied (a browser's own body margin is 8px)
    assert tab.errors == []
