"""An MCP session with the official Python SDK (PyPI `mcp`, pinned in .ci/run), for the ava tests.

    python3 python_client.py URL [--token TOKEN] < plan.json

The plan is {"calls": [{"tool": NAME, "arguments": {...}}, ...]}. The script initializes, lists the tools,
makes each call in order on the one session and prints one JSON document: the server's info, the
negotiated protocol version, the tools as they came over the wire, and each call's isError, text and
structuredContent. A call the SDK itself raised on (a JSON-RPC error rather than a tool error) is
recorded with "exception", so the test sees it instead of losing the rest of the plan.
"""

import argparse
import asyncio
import json
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation


def wire(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def run(url, token, plan):
    # The SDK takes headers through the HTTP client it is given, not as a transport option.
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(name="almanac-python-test", version="1.0.0")) as session:
                init = await session.initialize()
                tools = (await session.list_tools()).tools
                calls = []
                for call in plan.get("calls", []):
                    entry = {"tool": call["tool"], "arguments": call.get("arguments", {})}
                    try:
                        result = await session.call_tool(call["tool"], entry["arguments"])
                        entry["isError"] = bool(result.is_error)
                        entry["text"] = "\n".join(block.text for block in result.content if block.type == "text")
                        entry["structuredContent"] = result.structured_content
                    except Exception as err:  # noqa: BLE001 - reported to the test, which decides
                        entry["exception"] = f"{type(err).__name__}: {err}"
                    calls.append(entry)
                return {
                    "serverInfo": wire(init.server_info),
                    "protocolVersion": init.protocol_version,
                    "instructions": init.instructions,
                    "tools": [wire(tool) for tool in tools],
                    "calls": calls,
                }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--token")
    args = parser.parse_args()
    plan = json.loads(sys.stdin.read() or "{}")
    json.dump(asyncio.run(run(args.url, args.token, plan)), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
