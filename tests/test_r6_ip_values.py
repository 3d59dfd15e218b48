"""IP addresses, networks and interfaces (``ipaddress``) as parameters take their strings, as in pydantic."""

from __future__ import annotations

import ipaddress
import json
from typing import Any

import pytest
from _annotated import quiet_executor

from lagent_like import ActionExecutor, ActionStatusCode


def executor_for(annotation: Any) -> ActionExecutor:
    return quiet_executor(annotation)


@pytest.mark.parametrize(
    ("annotation", "sent", "received", "schema"),
    [
        pytest.param(
            ipaddress.IPv4Address, "192.0.2.1", "IPv4Address('192.0.2.1')", "ipv4", id="IPv4Address"
        ),
        pytest.param(
            ipaddress.IPv6Address, "2001:db8::1", "IPv6Address('2001:db8::1')", "ipv6", id="IPv6Address"
        ),
        pytest.param(
            ipaddress.IPv4Network,
            "192.0.2.0/24",
            "IPv4Network('192.0.2.0/24')",
            "ipv4network",
            id="IPv4Network",
        ),
        pytest.param(
            ipaddress.IPv6Interface,
            "2001:db8::1/32",
            "IPv6Interface('2001:db8::1/32')",
            "ipv6interface",
            id="IPv6Interface",
        ),
    ],
)
def test_an_ip_parameter_takes_its_string(annotation: Any, sent: str, received: str, schema: str) -> None:
    executor = executor_for(annotation)
    record = executor("take", json.dumps({"v": sent}))
    assert record.state == ActionStatusCode.SUCCESS, record.errmsg
    assert record.result[0]["content"] == received
    assert record.args == {"v": sent}
    exported = executor.to_openai_tools()[0]["function"]["parameters"]["properties"]["v"]
    assert exported == {"type": "string", "format": schema, "description": "the value."}


def test_an_address_of_the_other_version_is_refused_naming_the_form() -> None:
    record = executor_for(ipaddress.IPv4Address)("take", json.dumps({"v": "::1"}))
    assert record.errmsg == "take: 'v' expected IPv4Address (a string such as '192.0.2.1'), got string '::1'"
