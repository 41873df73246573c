"""The test fixture ``faults.CuttableLink`` itself: a connection being relayed when ``cut()``
comes does not survive it (a test that cuts the database expects no connection to get through)."""

from __future__ import annotations

import socket

import pytest

from tests.reliability.faults import CuttableLink


@pytest.mark.postgres
def test_a_connection_made_while_the_link_is_cut_is_closed(postgres_config):
    link = CuttableLink.to_postgres(postgres_config)
    connect = link._socket.create_connection

    def cut_meanwhile(*args, **kwargs):  # cut() comes while the upstream connection is made
        link.cut()
        return connect(*args, **kwargs)
    link._socket = type("Socket", (), {"create_connection": staticmethod(cut_meanwhile),
                                       "SHUT_RDWR": socket.SHUT_RDWR})
    try:
        with socket.create_connection(("127.0.0.1", link.port), timeout=5) as client:
            try:
                client.sendall(b"\x00\x00\x00\x08\x04\xd2\x16\x2f")  # PostgreSQL's SSLRequest: it answers 1 byte
                answer = client.recv(1)
            except (ConnectionResetError, BrokenPipeError):
                answer = b""
            assert answer == b""  # closed (at once, or reset), not relayed
    finally:
        link.close()
