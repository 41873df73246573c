"""gunicorn's access log, made for the one line warlog logs (``logger_class`` in
api/gunicorn_conf.py).

gunicorn builds, for every request, a dict of every atom its log formats know -- each request
and response header and every WSGI environ entry among them -- and wraps it in a second dict
that escapes quotes, before formatting a line that uses nine of them. ``AccessLogger.line_atoms``
builds those nine and nothing else, with gunicorn's own values and escaping, so the line is
the same (tests/api/test_accesslog.py compares the two) and a header never reaches the
formatting at all: no Authorization, no Referer, no query string. On a freeform order that
took an access line from 45 to 16 us (bench/findings.md). Lines still go through the
``gunicorn.access`` logger, so ``--access-logfile``, ``--log-config`` and syslog work as before.
"""

from __future__ import annotations

from gunicorn import glogging

# What api/gunicorn_conf.py logs: %(U)s is the path alone, never %(r)s or %(q)s (the query
# string), %(u)s (Basic auth's user), %(f)s (Referer) or any %({header}i)s.
FORMAT = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms "%(a)s"'


def _quoted(value: str | None) -> str:
    """gunicorn's SafeAtoms: a missing atom is '-', a double quote is escaped."""
    return "-" if value is None else value.replace('"', '\\"')


class AccessLogger(glogging.Logger):
    def line_atoms(self, resp, environ, request_time) -> dict:
        """The atoms of ``FORMAT``, as gunicorn's ``atoms`` and ``SafeAtoms`` would give them."""
        status = resp.status
        if isinstance(status, str):
            status = _quoted(status.split(None, 1)[0])
        sent = getattr(resp, "sent", None)
        return {
            "h": _quoted(environ.get("REMOTE_ADDR", "-")),
            "t": self.now(),
            "m": _quoted(environ.get("REQUEST_METHOD")),
            "U": _quoted(environ.get("PATH_INFO")),
            "H": _quoted(environ.get("SERVER_PROTOCOL")),
            "s": status,
            "b": str(sent) if sent is not None else "-",
            "M": request_time.seconds * 1000 + int(request_time.microseconds / 1000),
            "a": _quoted(environ.get("HTTP_USER_AGENT", "-")),
        }

    def access(self, resp, req, environ, request_time):
        if self.cfg.access_log_format != FORMAT:  # another format (an option) needs every atom
            return super().access(resp, req, environ, request_time)
        if not self.access_log_enabled:
            return None
        try:
            self.access_log.info(FORMAT, self.line_atoms(resp, environ, request_time))
        except Exception:  # as gunicorn: a line that cannot be written never fails the request
            self.exception("writing an access line")
        return None
