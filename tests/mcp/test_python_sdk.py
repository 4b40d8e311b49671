"""The official MCP Python SDK (PyPI `mcp`, pinned in requirements.txt) against pg_mcp_bridge
and a real PostgreSQL cluster, through both transports. Started by tests/mcp/run.sh, which
prepares the database (setup.sql) and the HTTP bridge and passes their coordinates in the
environment. Prints "N passed, N failed" last.
"""

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import traceback

import httpx2
from mcp import ClientSession, Client, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BRIDGE = os.environ["BRIDGE"]
PGHOST = os.environ["PGHOST"]
PGPORT = os.environ["PGPORT"]
DB = os.environ["PGDATABASE"]
PSQL = os.environ["PSQL"]
URL = os.environ["MCP_URL"]
KEY = os.environ["PG_MCP_JWT_SECRET"]
EXT_VERSION = os.environ["EXT_VERSION"]
SECRETS = ["sk-test-SECRET-api-key", "hunter2", "secret internal detail", KEY]

# every text any server answer contained, checked for secrets at the end
SEEN: list[str] = []


def seen(x):
    SEEN.append(x if isinstance(x, str) else json.dumps(x, default=str))
    return x


def dump(result) -> str:
    return seen(result.model_dump_json() if hasattr(result, "model_dump_json") else str(result))


def psql(sql: str) -> str:
    out = subprocess.run(
        [PSQL, "-X", "-qAt", "-h", PGHOST, "-p", PGPORT, "-U", "postgres", "-d", DB, "-c", sql],
        check=True, capture_output=True, text=True)
    return out.stdout.strip()


def bridge_env(user: str) -> dict:
    return {"PGHOST": PGHOST, "PGPORT": PGPORT, "PGUSER": user, "PGDATABASE": DB,
            "PATH": os.environ.get("PATH", "")}


def token(role: str) -> str:
    out = subprocess.run([BRIDGE, "token", "--role", role, "--exp-seconds", "600"],
                         check=True, capture_output=True, text=True, env={**os.environ})
    return out.stdout.strip()


def text_of(result) -> str:
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


# ------------------------------------------------------------------------------------------
# The SDK's full surface on one session (both transports run this)
# ------------------------------------------------------------------------------------------

async def exercise(session, label: str):
    tools = await session.list_tools()
    dump(tools)
    names = sorted(t.name for t in tools.tools)
    assert {"find_titel", "boom", "sql_query", "schema_information"} <= set(names), names
    find = next(t for t in tools.tools if t.name == "find_titel")
    assert find.output_schema["required"] == ["id", "titel"], find
    # a successful call, with structuredContent for a JSON object result
    r = await session.call_tool("find_titel", {"id": 3})
    dump(r)
    assert not r.is_error, r
    assert r.structured_content == {"id": 3, "titel": "Titel 3"}, r.structured_content
    r = await session.call_tool("sql_query", {"query": "SELECT id, titel FROM t ORDER BY id LIMIT 25"})
    dump(r)
    assert not r.is_error and "Titel 25" in text_of(r) and "more rows" in text_of(r), text_of(r)
    # invalid arguments: an isError result the model can correct from
    r = await session.call_tool("find_titel", {"id": "three"})
    dump(r)
    assert r.is_error and "must be an integer" in text_of(r), text_of(r)
    # a failing tool: isError, generic text, no detail
    r = await session.call_tool("boom", {"n": 1})
    dump(r)
    assert r.is_error and "failed during execution" in text_of(r), text_of(r)
    # resources and prompts
    res = await session.list_resources()
    dump(res)
    assert [str(x.uri) for x in res.resources] == ["pgmcp://t/count"], res
    rr = await session.read_resource("pgmcp://t/count")
    dump(rr)
    assert rr.contents[0].text == "40", rr
    prompts = await session.list_prompts()
    dump(prompts)
    assert "titel_summary" in [p.name for p in prompts.prompts]
    p = await session.get_prompt("titel_summary", {"id": "7", "lang": "German"})
    dump(p)
    # values arrive as marked data (mcp.render_prompt, the one renderer)
    assert p.messages[0].content.text == 'Summarize title <data name="id">7</data> in <data name="lang">German</data>.', p
    try:
        await session.get_prompt("titel_summary", {"id": "7"})
        raise AssertionError("missing prompt argument accepted")
    except MCPError as e:
        seen(str(e))
        assert e.error.code == -32602, e.error
    c = await session.complete(types.PromptReference(type="ref/prompt", name="titel_summary"),
                               {"name": "lang", "value": "ge"})
    dump(c)
    assert c.completion.values == ["German"], c
    await session.send_ping()


async def test_stdio_client_auto_mode_is_stateless():
    """Client() in its default 'auto' mode probes server/discover, which pg_mcp answers: the
    client stays in the stateless 2026-07-28 revision (no initialize), as the user's own login
    role over stdio."""
    params = StdioServerParameters(command=BRIDGE, args=[], env=bridge_env("mcp_t_alice"))
    async with Client(params, client_info=types.Implementation(name="pg-mcp-py-auto", version="1.0")) as client:
        assert client.protocol_version == "2026-07-28", client.protocol_version
        info = client.server_info
        assert info.name == "pg_mcp" and info.version == EXT_VERSION, info
        await exercise_modern(client)


async def test_stdio_client_legacy_mode():
    """mode='legacy': the initialize handshake, 2025-11-25, exactly as before."""
    params = StdioServerParameters(command=BRIDGE, args=[], env=bridge_env("mcp_t_alice"))
    async with Client(params, mode="legacy",
                      client_info=types.Implementation(name="pg-mcp-py-legacy", version="1.0")) as client:
        assert client.protocol_version == "2025-11-25", client.protocol_version
        info = client.server_info
        assert info.name == "pg_mcp" and info.version == EXT_VERSION, info
        tools = await client.list_tools()
        assert "find_titel" in [t.name for t in tools.tools]
        r = await client.call_tool("sql_query", {"query": "SELECT count(*) AS n FROM t"})
        assert "40" in text_of(r), text_of(r)
        seen(dump(r))


async def exercise_modern(client):
    """The SDK's surface in the 2026-07-28 revision: every answer is validated by the SDK's
    2026-07-28 models (resultType, ttlMs/cacheScope on the cacheable results)."""
    tools = await client.list_tools(cache_mode="bypass")
    dump(tools)
    names = [t.name for t in tools.tools]
    assert {"find_titel", "boom", "sql_query", "schema_information"} <= set(names), names
    # deterministic order: byte order of the names, the same on every call
    assert names == sorted(names, key=lambda n: n.encode()), names
    again = await client.list_tools(cache_mode="bypass")
    assert [t.name for t in again.tools] == names
    assert tools.ttl_ms == 60000 and tools.cache_scope == "private", (tools.ttl_ms, tools.cache_scope)
    find = next(t for t in tools.tools if t.name == "find_titel")
    assert find.output_schema["required"] == ["id", "titel"], find
    r = await client.call_tool("find_titel", {"id": 3})
    dump(r)
    assert not r.is_error and r.structured_content == {"id": 3, "titel": "Titel 3"}, r
    r = await client.call_tool("find_titel", {"id": "three"})
    dump(r)
    assert r.is_error and "must be an integer" in text_of(r), text_of(r)
    r = await client.call_tool("boom", {"n": 1})
    dump(r)
    assert r.is_error and "failed during execution" in text_of(r), text_of(r)
    res = await client.list_resources(cache_mode="bypass")
    dump(res)
    assert [str(x.uri) for x in res.resources] == ["pgmcp://t/count"], res
    rr = await client.read_resource("pgmcp://t/count", cache_mode="bypass")
    dump(rr)
    assert rr.contents[0].text == "40" and rr.ttl_ms == 0 and rr.cache_scope == "private", rr
    try:
        await client.read_resource("pgmcp://t/nothing", cache_mode="bypass")
        raise AssertionError("unknown resource read")
    except MCPError as e:
        seen(str(e))
        assert e.error.code == -32602, e.error  # -32002 before 2026-07-28
    prompts = await client.list_prompts(cache_mode="bypass")
    dump(prompts)
    assert "titel_summary" in [p.name for p in prompts.prompts]
    p = await client.get_prompt("titel_summary", {"id": "7", "lang": "German"})
    dump(p)
    assert p.messages[0].content.text == 'Summarize title <data name="id">7</data> in <data name="lang">German</data>.', p
    c = await client.complete(types.PromptReference(type="ref/prompt", name="titel_summary"),
                              {"name": "lang", "value": "ge"})
    dump(c)
    assert c.completion.values == ["German"], c


async def test_stdio_session_full_surface_and_application_name():
    params = StdioServerParameters(command=BRIDGE, args=[], env=bridge_env("mcp_t_alice"))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, client_info=types.Implementation(name="pg-mcp-py-stdio", version="1.0")) as s:
            init = await s.initialize()
            assert init.protocol_version == "2025-11-25", init.protocol_version
            assert init.server_info.version == EXT_VERSION, init.server_info
            assert "not instructions" in init.instructions, init.instructions
            assert init.capabilities.tools.list_changed
            await exercise(s, "stdio")
            apps = psql("SELECT string_agg(application_name, ',') FROM pg_stat_activity WHERE usename = 'mcp_t_alice'")
            assert "pg_mcp_bridge pg-mcp-py-stdio/1.0" in apps, apps
            # audited like mcp.call_tool, under the user's own role
            rows = psql("SELECT string_agg(DISTINCT role_name || ':' || tool || ':' || status, ',' ORDER BY role_name || ':' || tool || ':' || status) FROM mcp.tool_call WHERE role_name = 'mcp_t_alice'")
            assert "mcp_t_alice:boom:error" in rows and "mcp_t_alice:find_titel:invalid" in rows, rows


async def test_stdio_list_changed_and_reconnect():
    got = asyncio.Queue()

    async def on_message(m):
        if isinstance(m, types.ToolListChangedNotification):
            await got.put(m)

    params = StdioServerParameters(command=BRIDGE, args=[], env=bridge_env("mcp_t_alice"))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message,
                                 client_info=types.Implementation(name="pg-mcp-py-notify", version="1.0")) as s:
            await s.initialize()
            await s.list_tools()
            psql("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'getDialog')")
            try:
                await asyncio.wait_for(got.get(), 10)
                tools = await s.list_tools()
                assert "getDialog" in [t.name for t in tools.tools]
            finally:
                psql("DELETE FROM mcp.interface_tool WHERE tool = 'getDialog'")
            # the database connection dies (as in a restart): the bridge reconnects
            n = psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'pg_mcp_bridge pg-mcp-py-notify/1.0'")
            assert n == "1", n
            await asyncio.sleep(0.3)
            tools = await s.list_tools()
            assert "find_titel" in [t.name for t in tools.tools]
            apps = psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pg_mcp_bridge pg-mcp-py-notify/1.0'")
            assert apps == "1", apps


def test_stdio_raw_protocol_errors_cancel_and_sigterm():
    p = subprocess.Popen([BRIDGE], env=bridge_env("mcp_t_alice"), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def recv():
        while True:  # skip server notifications (list_changed from other sessions' changes)
            m = json.loads(seen(p.stdout.readline()))
            if "id" in m:
                return m

    send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                                "clientInfo": {"name": "raw", "version": "0"}}}))
    assert recv()["result"]["protocolVersion"] == "2025-03-26"
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
    send('{"jsonrpc": "2.0", "id": 2, "method": "tools/list"')  # malformed JSON
    r = recv()
    assert r["error"]["code"] == -32700 and r["id"] is None, r
    send('{"jsonrpc":"2.0","id":3,"method":"no/such/method"}')
    r = recv()
    assert r["id"] == 3 and r["error"]["code"] == -32601, r
    send('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}')
    r = recv()
    assert r["id"] == 4 and r["error"]["code"] == -32602, r
    send('{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":"x"}')
    r = recv()
    assert r["id"] == 5 and r["error"]["code"] == -32602, r
    # a notification gets no response: the next line is the answer to the ping after it
    send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}')
    send('{"jsonrpc":"2.0","id":"after","method":"ping"}')
    r = recv()
    assert r["id"] == "after" and r["result"] == {}, r
    # 2025-03-26 has no structuredContent
    send('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"find_titel","arguments":{"id":1}}}')
    r = recv()
    assert "structuredContent" not in r["result"] and not r["result"]["isError"], r
    # notifications/cancelled for a running request: cancelled in the database, no response
    t0 = time.monotonic()
    send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sql_query","arguments":{"query":"SELECT pg_sleep(30)"}}}')
    time.sleep(0.3)
    send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}')
    send('{"jsonrpc":"2.0","id":8,"method":"ping"}')
    r = recv()
    assert r["id"] == 8 and time.monotonic() - t0 < 5, (r, time.monotonic() - t0)
    busy = psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND state = 'active' AND pid <> pg_backend_pid()")
    assert busy == "0", busy
    p.send_signal(signal.SIGTERM)
    code = p.wait(timeout=5)
    assert code == 0, code
    seen(p.stderr.read())


def test_superuser_refused_unless_allowed():
    p = subprocess.run([BRIDGE], env=bridge_env("postgres"), input="", capture_output=True, text=True, timeout=20)
    assert p.returncode == 1 and "superuser" in p.stderr, (p.returncode, p.stderr)
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})
    p = subprocess.run([BRIDGE, "--allow-superuser"], env=bridge_env("postgres"), input=init + "\n",
                       capture_output=True, text=True, timeout=20)
    assert p.returncode == 0 and json.loads(p.stdout)["result"]["protocolVersion"] == "2025-06-18", p


# ------------------------------------------------------------------------------------------
# Streamable HTTP: bearer tokens, SET LOCAL ROLE per request
# ------------------------------------------------------------------------------------------

async def http_session(role_token, fn, message_handler=None):
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {role_token}"}) as hc:
        async with streamable_http_client(URL, http_client=hc) as (read, write):
            async with ClientSession(read, write, message_handler=message_handler,
                                     client_info=types.Implementation(name="pg-mcp-py-http", version="1.0")) as s:
                init = await s.initialize()
                assert init.server_info.name == "pg_mcp"
                return await fn(s)


async def test_http_full_surface_as_analyst():
    await http_session(token("mcp_t_analyst"), lambda s: exercise(s, "http"))
    rows = psql("SELECT count(*) FROM mcp.tool_call WHERE role_name = 'mcp_t_analyst' AND tool = 'find_titel' AND status = 'ok'")
    assert int(rows) >= 1, rows


async def test_http_roles_see_different_tools():
    async def names(s):
        return sorted(t.name for t in (await s.list_tools()).tools)

    analyst = await http_session(token("mcp_t_analyst"), names)
    guest = await http_session(token("mcp_t_guest"), names)
    assert "find_titel" in analyst and "find_titel" not in guest, (analyst, guest)

    async def guest_calls(s):
        try:
            await s.call_tool("find_titel", {"id": 1})
            raise AssertionError("guest could call find_titel")
        except MCPError as e:
            seen(str(e))
            assert e.error.code == -32602, e.error

    await http_session(token("mcp_t_guest"), guest_calls)


async def test_http_list_changed_over_sse():
    got = asyncio.Queue()

    async def on_message(m):
        if isinstance(m, types.ToolListChangedNotification):
            await got.put(m)

    async def wait_for_change(s):
        await s.list_tools()
        await asyncio.sleep(0.5)  # the SDK opens the GET stream after initialization
        psql("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'getDialog')")
        await asyncio.wait_for(got.get(), 10)

    try:
        await http_session(token("mcp_t_analyst"), wait_for_change, on_message)
    finally:
        psql("DELETE FROM mcp.interface_tool WHERE tool = 'getDialog'")


async def test_http_client_auto_mode_is_stateless():
    """Over Streamable HTTP: 'auto' discovers 2026-07-28; no session is opened, and every
    request carries its own _meta and the Mcp-Method/Mcp-Name headers the bridge checks."""
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token('mcp_t_analyst')}"}) as hc:
        async with Client(streamable_http_client(URL, http_client=hc),
                          client_info=types.Implementation(name="pg-mcp-py-modern", version="1.0")) as client:
            assert client.protocol_version == "2026-07-28", client.protocol_version
            assert client.server_info.name == "pg_mcp" and client.server_info.version == EXT_VERSION
            await exercise_modern(client)
    rows = psql("SELECT count(*) FROM mcp.tool_call WHERE role_name = 'mcp_t_analyst' AND tool = 'boom' AND status = 'error'")
    assert int(rows) >= 1, rows


async def test_http_legacy_client_alongside():
    """A 2025-11-25 client on the same bridge at the same time: initialize, a session, as before."""
    async def both(s):
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token('mcp_t_analyst')}"}) as hc:
            async with Client(streamable_http_client(URL, http_client=hc)) as modern_client:
                assert modern_client.protocol_version == "2026-07-28"
                legacy = sorted(t.name for t in (await s.list_tools()).tools)
                modern_names = sorted(t.name for t in (await modern_client.list_tools()).tools)
                assert legacy == modern_names, (legacy, modern_names)
    await http_session(token("mcp_t_analyst"), both)


# ------------------------------------------------------------------------------------------
# Input requests: a tool asks the client's user (elicitation) in both eras
# ------------------------------------------------------------------------------------------

def elicitation_answers(action="accept", content=None):
    asked = []

    async def on_elicit(context, params):
        asked.append(params)
        return types.ElicitResult(action=action, content=content)
    return asked, on_elicit


async def input_request_calls(client, asked, label):
    r = await client.call_tool("confirm_titel", {"id": 5})
    dump(r)
    assert not r.is_error, (label, r)
    assert r.structured_content == {"id": 5, "titel": "Titel 5", "reason": "audit"}, (label, r.structured_content)
    assert len(asked) == 1 and asked[0].message == "Show title 5?", (label, asked)
    assert asked[0].requested_schema["required"] == ["reason"], (label, asked[0])
    # getDialog's missing parameters: one form, the answer is the call's result
    r = await client.call_tool("getDialog", {"missing_parameters": ["reason"], "context": "Why?"})
    dump(r)
    assert r.structured_content == {"action": "accept", "answers": {"reason": "audit"}}, (label, r)
    assert len(asked) == 2 and "reason" in asked[1].requested_schema["properties"], (label, asked)


async def test_http_modern_client_answers_input_requests():
    """2026-07-28: the tool's first round is an InputRequiredResult, the SDK asks its
    elicitation callback and calls again with inputResponses (no session, no server request)."""
    psql("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'getDialog') ON CONFLICT DO NOTHING")
    try:
        asked, cb = elicitation_answers(content={"reason": "audit"})
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token('mcp_t_analyst')}"}) as hc:
            async with Client(streamable_http_client(URL, http_client=hc), elicitation_callback=cb) as client:
                assert client.protocol_version == "2026-07-28", client.protocol_version
                await input_request_calls(client, asked, "modern")
            # a client without elicitation gets a tool error instead of a request it cannot answer
            async with Client(streamable_http_client(URL, http_client=hc)) as plain:
                r = await plain.call_tool("confirm_titel", {"id": 5})
                dump(r)
                assert r.is_error and "capability 'elicitation'" in text_of(r), r
    finally:
        psql("DELETE FROM mcp.interface_tool WHERE tool = 'getDialog'")
    # each round is an audited call
    rows = psql("SELECT count(*) FROM mcp.tool_call WHERE role_name = 'mcp_t_analyst' AND tool = 'confirm_titel'")
    assert int(rows) >= 3, rows


async def test_http_legacy_client_gets_elicitation_requests():
    """2025-11-25: the bridge sends the tool's input request as elicitation/create on the
    call's SSE stream, takes the client's response from its POST and calls again."""
    psql("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'getDialog') ON CONFLICT DO NOTHING")
    try:
        asked, cb = elicitation_answers(content={"reason": "audit"})
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token('mcp_t_analyst')}"}) as hc:
            async with Client(streamable_http_client(URL, http_client=hc), mode="legacy", elicitation_callback=cb) as client:
                assert client.protocol_version == "2025-11-25", client.protocol_version
                await input_request_calls(client, asked, "legacy")
            declined, cb = elicitation_answers(action="decline")
            async with Client(streamable_http_client(URL, http_client=hc), mode="legacy", elicitation_callback=cb) as client:
                r = await client.call_tool("confirm_titel", {"id": 6})
                dump(r)
                assert r.structured_content == {"id": 6, "declined": True}, r
            # a client that declared no elicitation: a tool error, nothing sent to it
            async with Client(streamable_http_client(URL, http_client=hc), mode="legacy") as plain:
                r = await plain.call_tool("confirm_titel", {"id": 5})
                dump(r)
                assert r.is_error and "capability 'elicitation'" in text_of(r), r
    finally:
        psql("DELETE FROM mcp.interface_tool WHERE tool = 'getDialog'")


# ------------------------------------------------------------------------------------------
# A tool that requires approval: URL-mode elicitation to the console, a person decides
# ------------------------------------------------------------------------------------------

def approval_of(url: str) -> str:
    """The approval id a console URL names (…/console/approvals#<id>)."""
    console = URL.rsplit("/mcp", 1)[0] + "/console/approvals#"
    assert url.startswith(console), (url, console)
    return url[len(console):]


def approve_in_sql(approval_id: str, role="mcp_t_approver"):
    psql(f"SET ROLE {role}; SELECT mcp.approve('{approval_id}')")


def console_decide(approval_id: str, action: str, reason: str = ""):
    """The approver signs in to the bridge's console and decides on the page the URL points to."""
    base = URL.rsplit("/mcp", 1)[0]
    origin = {"Origin": base}
    with httpx2.Client(base_url=base, timeout=30, follow_redirects=False) as c:
        r = c.post("/console/login", data={"token": token("mcp_t_approver")}, headers=origin)
        assert r.status_code in (302, 303), (r.status_code, r.text[:500])
        page = c.get("/console/approvals")
        assert page.status_code == 200, page.status_code
        html = page.text
        # the card the elicitation's URL fragment names
        assert f'id="{approval_id}"' in html, html[:2000]
        csrf = html.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        r = c.post("/console/approvals", headers=origin,
                   data={"csrf": csrf, "approval_id": approval_id, "action": action, "reason": reason})
        assert r.status_code == 200 and 'class="refusal"' not in r.text, (r.status_code, r.text[:2000])


async def test_http_approval_of_direct_calls_in_both_eras():
    """A tools/call of a tool that requires approval: 2026-07-28 gets an input request of URL
    mode, 2025-11-25 the URLElicitationRequiredError (-32042); the client's accept alone runs
    nothing; a person approves through SQL or the console, and the retry runs the call."""
    psql("UPDATE mcp.interface SET allow_acting_tools = true WHERE name = 'chatbot';"
         " INSERT INTO mcp.interface_tool VALUES ('chatbot', 'open_ticket') ON CONFLICT DO NOTHING")
    try:
        urls = []

        async def on_elicit(context, params):
            # the SDK hands its user the URL; the first accept is only the client's word
            assert params.mode == "url", params
            urls.append(params.url)
            if len(urls) == 2:
                approve_in_sql(approval_of(params.url))
            return types.ElicitResult(action="accept")
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token('mcp_t_analyst')}"}) as hc:
            async with Client(streamable_http_client(URL, http_client=hc), elicitation_callback=on_elicit) as client:
                assert client.protocol_version == "2026-07-28", client.protocol_version
                r = await client.call_tool("open_ticket", {"title": "Drucker defekt", "prio": 2})
                dump(r)
                assert not r.is_error, r
                assert r.structured_content["by"] == "mcp_t_analyst", r.structured_content
                assert len(urls) == 2 and urls[0] == urls[1], urls
                first = approval_of(urls[0])
                row = psql(f"SELECT status || ' ' || decided_by || ' ' || (continued_at IS NOT NULL) FROM mcp.approval WHERE approval_id = '{first}'")
                assert row == "approved mcp_t_approver true", row
                audit = psql(f"SELECT status FROM mcp.tool_call WHERE tool_call_id = '{first}'")
                assert audit == "ok", audit
            # 2025-11-25: the error names the elicitation; a retry before the decision is refused again
            # (the SDK declares URL-mode elicitation when it has an elicitation callback)
            never, cb = elicitation_answers()
            async with Client(streamable_http_client(URL, http_client=hc), mode="legacy", elicitation_callback=cb) as client:
                assert client.protocol_version == "2025-11-25", client.protocol_version
                args = {"title": "Netz weg", "prio": 1}
                ids = []
                for _ in range(2):
                    try:
                        await client.call_tool("open_ticket", args)
                        raise AssertionError("ran without an approval")
                    except MCPError as e:
                        seen(str(e.data))
                        assert e.code == -32042, (e.code, e.message)
                        el = e.data["elicitations"][0]
                        assert el["mode"] == "url" and el["elicitationId"] == approval_of(el["url"]), el
                        ids.append(el["elicitationId"])
                assert ids[0] == ids[1], ids
                assert psql("SELECT count(*) FROM public.ticket WHERE title = 'Netz weg'") == "0"
                # the approver decides on the console page the URL points to
                console_decide(ids[0], "approve")
                r = await client.call_tool("open_ticket", args)
                dump(r)
                assert not r.is_error and r.structured_content["title"] == "Netz weg", r
                # changed arguments need their own approval; the console rejects this one
                try:
                    await client.call_tool("open_ticket", {"title": "Netz weg", "prio": 9})
                    raise AssertionError("ran without an approval")
                except MCPError as e:
                    other = e.data["elicitations"][0]["elicitationId"]
                assert other != ids[0]
                console_decide(other, "reject", "not urgent")
                r = await client.call_tool("open_ticket", {"title": "Netz weg", "prio": 9})
                dump(r)
                assert r.is_error and "rejected by mcp_t_approver: not urgent" in text_of(r), r
                assert never == [], never
            # a handshake client without URL-mode elicitation: a tool error naming the approval
            async with Client(streamable_http_client(URL, http_client=hc), mode="legacy") as plain:
                r = await plain.call_tool("open_ticket", {"title": "ohne url", "prio": 1})
                dump(r)
                assert r.is_error and "did not declare URL-mode elicitation" in text_of(r), r
                waiting = re.search(r"approval ([0-9a-f-]{36}) waits", text_of(r)).group(1)
                assert psql(f"SELECT status FROM mcp.approval WHERE approval_id = '{waiting}'") == "pending"
        assert psql("SELECT count(*) FROM public.ticket") == "2"
        statuses = psql("SELECT string_agg(status, ',' ORDER BY call_id) FROM mcp.tool_call WHERE tool = 'open_ticket'")
        assert statuses == "ok,ok,denied", statuses
    finally:
        psql("DELETE FROM mcp.interface_tool WHERE tool = 'open_ticket';"
             " UPDATE mcp.interface SET allow_acting_tools = false WHERE name = 'chatbot'")


async def test_stdio_approval_of_a_direct_call():
    """Over stdio the console's URL comes from the database's setting (mcp.console_url); the
    2025-11-25 client gets -32042, a person approves in SQL, the retry runs."""
    psql("UPDATE mcp.interface SET allow_acting_tools = true WHERE name = 'chatbot';"
         " INSERT INTO mcp.interface_tool VALUES ('chatbot', 'open_ticket') ON CONFLICT DO NOTHING;"
         f" ALTER ROLE mcp_t_alice SET mcp.console_url = '{URL.rsplit('/mcp', 1)[0]}/console'")
    try:
        params = StdioServerParameters(command=BRIDGE, args=[], env=bridge_env("mcp_t_alice"))
        never, cb = elicitation_answers()
        async with Client(params, mode="legacy") as plain:
            r = await plain.call_tool("open_ticket", {"title": "ohne url", "prio": 3})
            dump(r)
            assert r.is_error and "did not declare URL-mode elicitation" in text_of(r), r
        async with Client(params, mode="legacy", elicitation_callback=cb) as client:
            try:
                await client.call_tool("open_ticket", {"title": "über stdio", "prio": 3})
                raise AssertionError("ran without an approval")
            except MCPError as e:
                assert e.code == -32042, (e.code, e.message)
                approval = approval_of(e.data["elicitations"][0]["url"])
            # alice is a member of the analyst role, not an approver
            out = subprocess.run([PSQL, "-X", "-qAt", "-h", PGHOST, "-p", PGPORT, "-U", "mcp_t_alice", "-d", DB,
                                  "-c", f"SELECT mcp.approve('{approval}')"], capture_output=True, text=True)
            assert out.returncode != 0 and "permission denied" in out.stderr, out
            approve_in_sql(approval)
            r = await client.call_tool("open_ticket", {"title": "über stdio", "prio": 3})
            dump(r)
            assert not r.is_error and r.structured_content["by"] == "mcp_t_alice", r
            assert never == [], never
    finally:
        psql("DELETE FROM mcp.interface_tool WHERE tool = 'open_ticket';"
             " UPDATE mcp.interface SET allow_acting_tools = false WHERE name = 'chatbot';"
             " ALTER ROLE mcp_t_alice RESET mcp.console_url")


async def test_stdio_legacy_client_gets_elicitation_requests():
    """2025-11-25 over stdio: the bridge writes the tool's input request as elicitation/create
    to stdout, reads the client's response from stdin and calls again."""
    asked, cb = elicitation_answers(content={"reason": "audit"})
    params = StdioServerParameters(command=BRIDGE, args=[], env=bridge_env("mcp_t_alice"))
    psql("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'getDialog') ON CONFLICT DO NOTHING")
    try:
        async with Client(params, mode="legacy", elicitation_callback=cb) as client:
            assert client.protocol_version == "2025-11-25", client.protocol_version
            await input_request_calls(client, asked, "stdio legacy")
        async with Client(params, mode="legacy") as plain:
            r = await plain.call_tool("confirm_titel", {"id": 5})
            dump(r)
            assert r.is_error and "capability 'elicitation'" in text_of(r), r
    finally:
        psql("DELETE FROM mcp.interface_tool WHERE tool = 'getDialog'")


async def test_http_modern_client_log_level_per_request():
    """2026-07-28: a request's own _meta logLevel (no logging/setLevel, no session) brings the
    tool's notices at or above it as notifications/message on the call's SSE answer."""
    got = []

    async def on_log(params):
        got.append((params.level, params.data))
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token('mcp_t_analyst')}"}) as hc:
        async with Client(streamable_http_client(URL, http_client=hc), log_level="warning",
                          logging_callback=on_log) as client:
            assert client.protocol_version == "2026-07-28", client.protocol_version
            r = await client.call_tool("noisy_count", {})
            dump(r)
            assert text_of(r) == "40", r
            assert [lvl for lvl, _ in got] == ["warning"], got
            assert "almost done" in json.dumps(got[0][1]), got
        got.clear()
        async with Client(streamable_http_client(URL, http_client=hc), log_level="info",
                          logging_callback=on_log) as client:
            await client.call_tool("noisy_count", {})
            assert [lvl for lvl, _ in got] == ["notice", "warning"], got
        got.clear()
        # no level: no messages
        async with Client(streamable_http_client(URL, http_client=hc), logging_callback=on_log) as client:
            await client.call_tool("noisy_count", {})
            assert got == [], got


async def test_stdio_modern_client_log_level_per_request():
    """stdio as over HTTP: a 2026-07-28 request's own _meta logLevel brings the tool's notices
    at or above it as notifications/message before the call's answer (Python SDK Client)."""
    got = []

    async def on_log(params):
        got.append((params.level, params.data))
    params = StdioServerParameters(command=BRIDGE, args=[], env=bridge_env("mcp_t_alice"))
    async with Client(params, log_level="warning", logging_callback=on_log) as client:
        assert client.protocol_version == "2026-07-28", client.protocol_version
        r = await client.call_tool("noisy_count", {})
        dump(r)
        assert text_of(r) == "40", r
        assert [lvl for lvl, _ in got] == ["warning"], got
        assert "almost done" in json.dumps(got[0][1]), got
    got.clear()
    async with Client(params, logging_callback=on_log) as client:
        await client.call_tool("noisy_count", {})
        assert got == [], got


def test_stdio_raw_session_level_and_traceparent():
    """stdio, raw lines: logging/setLevel sets the session's level for a handshake client's
    tool notices; a W3C traceparent in a request's _meta names the backend while that request
    runs (application_name, as over HTTP), the session's name again after it; a malformed one
    is ignored."""
    psql("INSERT INTO mcp.resource (uri, name, query) VALUES ('pgmcp://t/app2', 'app2', "
         "'SELECT current_setting(''application_name'')') ON CONFLICT DO NOTHING")
    p = subprocess.Popen([BRIDGE], env=bridge_env("mcp_t_alice"), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)

    def send(m):
        p.stdin.write(json.dumps(m) + "\n")
        p.stdin.flush()

    def until(i):
        before = []
        while True:
            m = json.loads(seen(p.stdout.readline()))
            if m.get("id") == i:
                return m, before
            before.append(m)

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        until(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "noisy_count", "arguments": {}}}
        send(call)
        r, before = until(2)
        assert r["result"]["content"][0]["text"] == "40" and before == [], (r, before)
        send({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "info"}})
        assert until(3)[0]["result"] == {}
        send({**call, "id": 4})
        r, before = until(4)
        levels = [m["params"]["level"] for m in before if m.get("method") == "notifications/message"]
        assert levels == ["notice", "warning"], before
        tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        read = {"jsonrpc": "2.0", "id": 5, "method": "resources/read",
                "params": {"uri": "pgmcp://t/app2", "_meta": {"traceparent": tp}}}
        send(read)
        r, _ = until(5)
        assert r["result"]["contents"][0]["text"] == \
            "pg_mcp_bridge 4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", r
        send({**read, "id": 6, "params": {"uri": "pgmcp://t/app2"}})
        r, _ = until(6)
        assert r["result"]["contents"][0]["text"] == "pg_mcp_bridge raw/0", r
        send({**read, "id": 7, "params": {"uri": "pgmcp://t/app2", "_meta": {"traceparent": "00-bad-01"}}})
        r, _ = until(7)
        assert r["result"]["contents"][0]["text"] == "pg_mcp_bridge raw/0", r
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=5)
        seen(p.stderr.read())
        psql("DELETE FROM mcp.resource WHERE uri = 'pgmcp://t/app2'")


async def test_http_modern_listen_delivers_list_changes_and_updates():
    """2026-07-28 subscriptions/listen over HTTP: the acknowledgement honours the list changes
    asked for and the resources the role can see; registry changes and mcp.resource_updated
    (LISTEN/NOTIFY) arrive on the stream."""
    from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token('mcp_t_analyst')}"}) as hc:
        async with Client(streamable_http_client(URL, http_client=hc)) as client:
            assert client.server_capabilities.tools.list_changed, client.server_capabilities
            async with client.listen(tools_list_changed=True,
                                     resource_subscriptions=["pgmcp://t/count", "pgmcp://t/none"]) as sub:
                assert sub.honored.tools_list_changed, sub.honored
                assert sub.honored.resource_subscriptions == ["pgmcp://t/count"], sub.honored
                assert not sub.honored.prompts_list_changed
                psql("SELECT mcp.resource_updated('pgmcp://t/other')")   # not subscribed: not sent
                psql("SELECT mcp.resource_updated('pgmcp://t/count')")
                ev = await asyncio.wait_for(sub.__anext__(), 10)
                assert isinstance(ev, ResourceUpdated) and ev.uri == "pgmcp://t/count", ev
                psql("UPDATE mcp.tool SET description = description || '.' WHERE name = 'boom'")
                ev = await asyncio.wait_for(sub.__anext__(), 10)
                assert isinstance(ev, ToolsListChanged), ev


async def test_http_legacy_subscribe_gets_resource_updates():
    """2025-11-25: resources/subscribe on a session; mcp.resource_updated of that URI reaches
    the session's GET stream as notifications/resources/updated, other URIs do not."""
    got = asyncio.Queue()

    async def on_message(m):
        if isinstance(m, types.ResourceUpdatedNotification):
            await got.put(str(m.params.uri))

    async def run(s):
        await s.subscribe_resource("pgmcp://t/count")
        await asyncio.sleep(0.5)  # the GET stream is open
        psql("SELECT mcp.resource_updated('pgmcp://t/other')")
        psql("SELECT mcp.resource_updated('pgmcp://t/count')")
        uri = await asyncio.wait_for(got.get(), 10)
        assert uri == "pgmcp://t/count", uri
        await s.unsubscribe_resource("pgmcp://t/count")
        psql("SELECT mcp.resource_updated('pgmcp://t/count')")
        await asyncio.sleep(0.5)
        assert got.empty(), got
        # a resource the role cannot see cannot be subscribed to
        try:
            await s.subscribe_resource("pgmcp://t/none")
            raise AssertionError("subscribed to an unknown resource")
        except MCPError as e:
            assert e.error.code == -32002, e.error
    await http_session(token("mcp_t_analyst"), run, on_message)


async def test_stdio_modern_client_answers_input_requests():
    """Over stdio the 2026-07-28 rounds need nothing of the bridge: the SDK drives them."""
    asked, cb = elicitation_answers(content={"reason": "audit"})
    params = StdioServerParameters(command=BRIDGE, args=[], env=bridge_env("mcp_t_alice"))
    psql("INSERT INTO mcp.interface_tool VALUES ('chatbot', 'getDialog') ON CONFLICT DO NOTHING")
    try:
        async with Client(params, elicitation_callback=cb) as client:
            assert client.protocol_version == "2026-07-28", client.protocol_version
            await input_request_calls(client, asked, "stdio")
    finally:
        psql("DELETE FROM mcp.interface_tool WHERE tool = 'getDialog'")


def post(body, tok=None, session=None, extra=None, raw=False):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if tok:
        h["Authorization"] = f"Bearer {tok}"
    if session:
        h["Mcp-Session-Id"] = session
    h.update(extra or {})
    r = httpx2.post(URL, content=body if raw else json.dumps(body), headers=h, timeout=30)
    seen(r.text)
    seen(dict(r.headers))
    return r


def init_http(tok):
    r = post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}, tok)
    assert r.status_code == 200, (r.status_code, r.text)
    return r.headers["mcp-session-id"]


def test_http_traceparent_names_the_backend():
    """A W3C traceparent in a request's _meta is in application_name while the request runs
    (pg_stat_activity, the server log's %a, a resource reader; a tool's own run is tagged with
    its audit row's call id instead); a malformed one is ignored."""
    tok = token("mcp_t_analyst")
    tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    psql("INSERT INTO mcp.resource (uri, name, query) VALUES ('pgmcp://t/app', 'app', 'SELECT current_setting(''application_name'')')")
    try:
        body = {"jsonrpc": "2.0", "id": 7, "method": "resources/read",
                "params": {"uri": "pgmcp://t/app", "_meta": {**MODERN_META, "traceparent": tp}}}
        h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read", "Mcp-Name": "pgmcp://t/app"}
        r = post(body, tok, extra=h)
        assert r.status_code == 200, r.text
        assert r.json()["result"]["contents"][0]["text"] == \
            "pg_mcp_bridge 4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", r.text
        body["params"]["_meta"]["traceparent"] = "00-not-a-trace-01"
        r = post(body, tok, extra=h)
        assert r.json()["result"]["contents"][0]["text"] == "pg_mcp_bridge raw-modern/0", r.text
    finally:
        psql("DELETE FROM mcp.resource WHERE uri = 'pgmcp://t/app'")


def test_http_tokens_cannot_act_as_another_role():
    analyst, guest = token("mcp_t_analyst"), token("mcp_t_guest")
    sa = init_http(analyst)
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert post(ping, analyst, sa).status_code == 200
    # no token, a forged token (guest's signature on an analyst claim), a wrong key
    assert post(ping, None, sa).status_code == 401
    h, _, s = guest.split(".")
    import base64
    forged_payload = base64.urlsafe_b64encode(json.dumps({"role": "mcp_t_analyst"}).encode()).decode().rstrip("=")
    r = post(ping, f"{h}.{forged_payload}.{s}", sa)
    assert r.status_code == 401 and "signature" in r.text, (r.status_code, r.text)
    # a guest token cannot use the analyst's session
    r = post(ping, guest, sa)
    assert r.status_code == 404, (r.status_code, r.text)
    # a validly signed token for a role the authenticator may not become
    r = post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}, token("mcp_t_stranger"))
    assert r.status_code == 403 and r.json()["error"]["code"] == -32600, (r.status_code, r.text)
    # the request really runs as the token's role
    r = post({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "sql_query", "arguments": {"query": "SELECT current_user AS u, session_user AS s"}}}, analyst, sa)
    assert "mcp_t_analyst" in r.text and "mcp_t_auth" in r.text, r.text


def test_http_opaque_tokens():
    tok = psql("SELECT mcp.create_bridge_token('mcp_t_analyst', 'sdk test')")
    assert tok.startswith("pgmcp_") and len(tok) > 60, tok
    # only the hash is stored
    assert psql(f"SELECT count(*) FROM mcp.bridge_token WHERE token_hash = sha256(convert_to('{tok}', 'UTF8'))") == "1"
    assert psql(f"SELECT count(*) FROM mcp.bridge_token t WHERE t::text LIKE '%{tok[6:]}%'") == "0"
    sa = init_http(tok)
    r = post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, tok, sa)
    assert "find_titel" in [t["name"] for t in r.json()["result"]["tools"]], r.text
    # another role's opaque token cannot use this session
    guest = psql("SELECT mcp.create_bridge_token('mcp_t_guest')")
    assert post({"jsonrpc": "2.0", "id": 3, "method": "ping"}, guest, sa).status_code == 404
    # unknown, expired and revoked tokens
    assert post({"jsonrpc": "2.0", "id": 4, "method": "ping"}, "pgmcp_unknown", sa).status_code == 401
    old = psql("SELECT mcp.create_bridge_token('mcp_t_analyst', 'expired', now() - interval '1 minute')")
    r = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}, old)
    assert r.status_code == 401, r.status_code
    psql(f"DELETE FROM mcp.bridge_token WHERE token_hash = sha256(convert_to('{tok}', 'UTF8'))")
    assert post({"jsonrpc": "2.0", "id": 5, "method": "ping"}, tok, sa).status_code == 401


def test_http_raw_protocol_errors():
    analyst = token("mcp_t_analyst")
    sa = init_http(analyst)
    r = post('{"jsonrpc": "2.0", "id": 1, "method": ', analyst, sa, raw=True)
    assert r.status_code == 400 and r.json()["error"]["code"] == -32700, (r.status_code, r.text)
    r = post({"jsonrpc": "2.0", "id": 2, "method": "nope"}, analyst, sa)
    assert r.status_code == 200 and r.json()["error"]["code"] == -32601, r.text
    r = post({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {}}, analyst, sa)
    assert r.json()["error"]["code"] == -32602, r.text
    r = post({"jsonrpc": "2.0", "method": "notifications/initialized"}, analyst, sa)
    assert r.status_code == 202 and r.text == "", (r.status_code, r.text)
    r = post({"jsonrpc": "2.0", "id": 4, "method": "ping"}, analyst, None)
    assert r.status_code == 400, r.status_code
    r = post({"jsonrpc": "2.0", "id": 5, "method": "ping"}, analyst, "no-such-session")
    assert r.status_code == 404, r.status_code
    r = post({"jsonrpc": "2.0", "id": 6, "method": "ping"}, analyst, sa, {"Origin": "http://evil.example"})
    assert r.status_code == 403, r.status_code
    r = post({"jsonrpc": "2.0", "id": 7, "method": "ping"}, analyst, sa, {"MCP-Protocol-Version": "1999-01-01"})
    assert r.status_code == 400, r.status_code
    r = post({"jsonrpc": "2.0", "id": 8, "method": "ping"}, analyst, sa, {"MCP-Protocol-Version": "2025-06-18"})
    assert r.status_code == 200, r.status_code
    # DELETE ends the session
    r = httpx2.delete(URL, headers={"Authorization": f"Bearer {analyst}", "Mcp-Session-Id": sa})
    assert r.status_code == 200
    assert post({"jsonrpc": "2.0", "id": 9, "method": "ping"}, analyst, sa).status_code == 404


MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientInfo": {"name": "raw-modern", "version": "0"},
               "io.modelcontextprotocol/clientCapabilities": {}}


def modern_post(tok, method, params=None, headers=None, id=1):
    body = {"jsonrpc": "2.0", "id": id, "method": method, "params": {**(params or {}), "_meta": MODERN_META}}
    h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if params and ("name" in params or "uri" in params):
        h["Mcp-Name"] = params.get("name") or params.get("uri")
    if headers is not None:
        h = {k: v for k, v in {**h, **headers}.items() if v is not None}
    return post(body, tok, extra=h)


def answer_of(r):
    """The JSON-RPC answer of a POST, whether the bridge sent JSON or an SSE stream."""
    if r.headers.get("content-type", "").startswith("text/event-stream"):
        msgs = [json.loads(l[5:]) for l in r.text.splitlines() if l.startswith("data:") and l[5:].strip()]
        return [m for m in msgs if "id" in m and ("result" in m or "error" in m)][-1]
    return r.json()


TASKS_META = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": {
    "extensions": {"io.modelcontextprotocol/tasks": {}}}}
REPLAY_ANSWER = json.dumps({"id": "r1", "object": "chat.completion", "model": "recorded", "choices": [
    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Es gibt 40 Titel."}}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})


def test_http_chat_as_a_task_in_both_eras():
    """The built-in tool chat as an MCP task over the bridge's HTTP socket, run by a real chat
    worker of the cluster (mcp.chat_submit's queue): 2026-07-28 with the tasks extension
    declared per request (CreateTaskResult, tasks/get until completed, Mcp-Name = taskId,
    -32021 without the extension, invisible to another role), and 2025-11-25 (params.task,
    tasks/get, tasks/result, tasks/list, tasks/cancel)."""
    analyst, guest = token("mcp_t_analyst"), token("mcp_t_guest")
    lit = REPLAY_ANSWER.replace("'", "''")
    psql(f"""INSERT INTO mcp.provider (name, kind, model, options) VALUES ('replay_t', 'replay', 'recorded',
               jsonb_build_object('responses', jsonb_build_array('{lit}'::text)));
             UPDATE mcp.interface SET provider = 'replay_t' WHERE name = 'chatbot';
             INSERT INTO mcp.interface_tool VALUES ('chatbot', 'chat') ON CONFLICT DO NOTHING""")

    def tpost(tok, method, params, id, meta=TASKS_META, name=None):
        body = {"jsonrpc": "2.0", "id": id, "method": method, "params": {**params, "_meta": meta}}
        h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
        if name is not None:
            h["Mcp-Name"] = name
        return post(body, tok, extra=h)

    def poll(get):
        deadline = time.monotonic() + 60
        while True:
            t = get()
            if t["status"] not in ("working", "input_required"):
                return t
            assert time.monotonic() < deadline, t
            time.sleep(0.2)

    try:
        # the request's trace context goes with the task into the chat worker
        tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        r = tpost(analyst, "tools/call", {"name": "chat", "arguments": {"question": "Wie viele Titel gibt es?"}}, 1,
                  meta={**TASKS_META, "traceparent": tp, "tracestate": "pgmcp=task"}, name="chat")
        assert r.status_code == 200, (r.status_code, r.text)
        created = answer_of(r)["result"]
        assert created["resultType"] == "task" and created["status"] == "working", created
        tid = created["taskId"]
        done = poll(lambda: tpost(analyst, "tasks/get", {"taskId": tid}, 2, name=tid).json()["result"])
        assert done["status"] == "completed" and done["resultType"] == "complete", done
        assert done["result"]["content"][0]["text"] == "Es gibt 40 Titel.", done
        assert done["result"]["isError"] is False and done["result"]["structuredContent"]["run_id"] == tid, done
        # a chat worker ran it as the caller: the run's audit row is the analyst's
        assert psql(f"SELECT role_name || ':' || status FROM mcp.run WHERE run_id = '{tid}'") == "mcp_t_analyst:completed"
        # … and its rows carry the submit's trace context, as a synchronous chat's do
        assert psql(f"""SELECT r.traceparent || ' ' || r.tracestate || ' ' || count(l.*) FILTER (WHERE l.traceparent = r.traceparent)
                          || '/' || count(l.*) FROM mcp.run r LEFT JOIN mcp.llm_request l USING (run_id)
                         WHERE r.run_id = '{tid}' GROUP BY r.traceparent, r.tracestate""") == f"{tp} pgmcp=task 1/1"
        # Mcp-Name must carry the task id; the extension must be declared on the request
        r = tpost(analyst, "tasks/get", {"taskId": tid}, 3, name="another")
        assert r.status_code == 400 and r.json()["error"]["code"] == -32020, (r.status_code, r.text)
        r = tpost(analyst, "tasks/get", {"taskId": tid}, 4, meta=MODERN_META, name=tid)
        assert r.status_code == 400 and r.json()["error"]["code"] == -32021, (r.status_code, r.text)
        # another role does not see it
        r = tpost(guest, "tasks/get", {"taskId": tid}, 5, name=tid)
        assert r.json()["error"]["code"] == -32602, r.text
        # cancel of a finished task is acknowledged and changes nothing
        r = tpost(analyst, "tasks/cancel", {"taskId": tid}, 6, name=tid)
        assert r.status_code == 200 and r.json()["result"]["resultType"] == "complete", r.text
        assert tpost(analyst, "tasks/get", {"taskId": tid}, 7, name=tid).json()["result"]["status"] == "completed"

        # 2025-11-25: tasks in the core
        sa = init_http(analyst)
        r = post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}, analyst)
        assert r.json()["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"] == {}, r.text
        r = post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, analyst, sa)
        chat = next(t for t in answer_of(r)["result"]["tools"] if t["name"] == "chat")
        assert chat["execution"]["taskSupport"] == "optional", chat
        r = post({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "chat", "arguments": {"question": "Und jetzt?"}, "task": {"ttl": 60000}}}, analyst, sa)
        task = answer_of(r)["result"]["task"]
        assert task["status"] == "working", task
        lid = task["taskId"]
        r = post({"jsonrpc": "2.0", "id": 4, "method": "tasks/result", "params": {"taskId": lid}}, analyst, sa)
        res = answer_of(r)["result"]
        assert res["content"][0]["text"] == "Es gibt 40 Titel.", res
        assert res["_meta"]["io.modelcontextprotocol/related-task"]["taskId"] == lid, res
        got = answer_of(post({"jsonrpc": "2.0", "id": 5, "method": "tasks/get", "params": {"taskId": lid}}, analyst, sa))
        assert got["result"]["status"] == "completed", got
        listed = answer_of(post({"jsonrpc": "2.0", "id": 6, "method": "tasks/list"}, analyst, sa))["result"]["tasks"]
        assert {tid, lid} <= {t["taskId"] for t in listed}, listed
        c = answer_of(post({"jsonrpc": "2.0", "id": 7, "method": "tasks/cancel", "params": {"taskId": lid}}, analyst, sa))
        assert c["error"]["code"] == -32602, c
        # without params.task the chat answers in the request
        r = post({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
            "name": "chat", "arguments": {"question": "Sofort?"}}}, analyst, sa)
        now = answer_of(r)["result"]
        assert now["content"][0]["text"] == "Es gibt 40 Titel." and "task" not in now, now
    finally:
        psql("""DELETE FROM mcp.interface_tool WHERE tool = 'chat';
                UPDATE mcp.interface SET provider = 'p' WHERE name = 'chatbot'""")


def test_http_stateless_discover_and_header_checks():
    analyst = token("mcp_t_analyst")
    r = modern_post(analyst, "server/discover")
    assert r.status_code == 200, (r.status_code, r.text)
    d = r.json()["result"]
    assert d["resultType"] == "complete" and d["cacheScope"] == "public" and d["ttlMs"] > 0, d
    assert d["supportedVersions"] == ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"], d
    assert d["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "pg_mcp", "version": EXT_VERSION}, d
    assert "mcp-session-id" not in r.headers, r.headers
    r = modern_post(analyst, "tools/call", {"name": "find_titel", "arguments": {"id": 2}})
    assert r.status_code == 200 and r.json()["result"]["structuredContent"] == {"id": 2, "titel": "Titel 2"}, r.text
    assert r.json()["result"]["resultType"] == "complete", r.text
    # a header that disagrees with the body: 400, -32020, and the tool does not run
    before = psql("SELECT count(*) FROM mcp.tool_call WHERE role_name = 'mcp_t_analyst' AND tool = 'boom'")
    for h in ({"Mcp-Name": "find_titel"}, {"Mcp-Method": "tools/list"}, {"Mcp-Name": None},
              {"Mcp-Method": None}, {"MCP-Protocol-Version": "2025-11-25"}, {"Mcp-Name": "=?base64?!!?=" }):
        r = modern_post(analyst, "tools/call", {"name": "boom", "arguments": {"n": 1}}, h)
        assert r.status_code == 400 and r.json()["error"]["code"] == -32020, (h, r.status_code, r.text)
        assert r.json()["id"] == 1, r.text
    # the base64 sentinel form of a name is decoded before the comparison
    r = modern_post(analyst, "resources/read", {"uri": "pgmcp://t/count"},
                    {"Mcp-Name": "=?base64?cGdtY3A6Ly90L2NvdW50?="})
    assert r.status_code == 200 and r.json()["result"]["contents"][0]["text"] == "40", r.text
    assert (r.json()["result"]["ttlMs"], r.json()["result"]["cacheScope"]) == (0, "private"), r.text
    after = psql("SELECT count(*) FROM mcp.tool_call WHERE role_name = 'mcp_t_analyst' AND tool = 'boom'")
    assert before == after, (before, after)
    # a version nobody speaks: 400 with UnsupportedProtocolVersionError and the supported list
    r = post({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
              "params": {"_meta": {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}}},
             analyst, extra={"MCP-Protocol-Version": "1900-01-01", "Mcp-Method": "tools/list"})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32022, (r.status_code, r.text)
    assert "2026-07-28" in r.json()["error"]["data"]["supported"], r.text
    # a handshake revision in the envelope is not served statelessly
    r = post({"jsonrpc": "2.0", "id": 4, "method": "tools/list",
              "params": {"_meta": {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "2025-11-25"}}},
             analyst, extra={"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/list"})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32022, (r.status_code, r.text)
    assert r.json()["error"]["data"]["requested"] == "2025-11-25", r.text
    # the 2026-07-28 header without the envelope: malformed, 400 -32602
    r = post({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}, analyst,
             extra={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32602, (r.status_code, r.text)
    # methods 2026-07-28 removed: 404 with -32601
    r = modern_post(analyst, "ping")
    assert r.status_code == 404 and r.json()["error"]["code"] == -32601, (r.status_code, r.text)
    # an unknown resource is -32602 now (and 200: an ordinary error)
    r = modern_post(analyst, "resources/read", {"uri": "pgmcp://t/nothing"})
    assert r.status_code == 200 and r.json()["error"]["code"] == -32602, (r.status_code, r.text)
    # a legacy session keeps working; a header it sends must agree with the body, too
    sa = init_http(analyst)
    r = post({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "find_titel", "arguments": {"id": 1}}},
             analyst, sa)
    assert r.status_code == 200 and "resultType" not in r.json()["result"], r.text
    r = post({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "find_titel", "arguments": {"id": 1}}},
             analyst, sa, {"Mcp-Name": "boom"})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32020, (r.status_code, r.text)
    # the stateless requests did not need, make or keep a session
    r = post({"jsonrpc": "2.0", "id": 8, "method": "ping"}, analyst, None)
    assert r.status_code == 400, r.status_code


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "crates", "mcp_bridge", "tests", "fixtures")


def rs256_token(role: str, key: str, kid: str | None = None) -> str:
    args = [BRIDGE, "token", "--role", role, "--exp-seconds", "600",
            "--jwt-private-key-file", os.path.join(FIXTURES, f"rs256_test_key_{key}.pem")]
    if kid:
        args += ["--kid", kid]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


def test_http_rs256_tokens_from_a_jwks():
    # the bridge holds only public keys (a JWKS made by `pg_mcp_bridge jwk`); tokens are signed
    # elsewhere with the private key
    jwks = {"keys": [json.loads(subprocess.run(
        [BRIDGE, "jwk", "--jwt-private-key-file", os.path.join(FIXTURES, "rs256_test_key_a.pem"), "--kid", "a"],
        check=True, capture_output=True, text=True).stdout)]}
    assert "d" not in jwks["keys"][0] and jwks["keys"][0]["kty"] == "RSA"
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        kf = os.path.join(tmp, "jwks.json")
        with open(kf, "w") as f:
            json.dump(jwks, f)
        log = open(os.path.join(tmp, "log"), "w+")
        env = {k: v for k, v in os.environ.items() if k != "PG_MCP_JWT_SECRET"}
        env["PGUSER"] = "mcp_t_auth"
        p = subprocess.Popen([BRIDGE, "http", "--listen", "127.0.0.1:0", "--jwt-secret-file", kf],
                             stderr=log, env=env)
        try:
            url = None
            for _ in range(100):
                log.seek(0)
                text = log.read()
                if "Streamable HTTP on" in text:
                    url = text.split("Streamable HTTP on ")[1].split()[0]
                    break
                time.sleep(0.1)
            assert url, text

            def rpost(body, tok, session=None):
                h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                     "Authorization": f"Bearer {tok}"}
                if session:
                    h["Mcp-Session-Id"] = session
                r = httpx2.post(url, content=json.dumps(body), headers=h, timeout=30)
                seen(r.text)
                return r

            init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "rs", "version": "0"}}}
            analyst = rs256_token("mcp_t_analyst", "a", "a")
            r = rpost(init, analyst)
            assert r.status_code == 200, (r.status_code, r.text)
            sa = r.headers["mcp-session-id"]
            r = rpost({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "sql_query", "arguments": {"query": "SELECT current_user AS u"}}}, analyst, sa)
            assert "mcp_t_analyst" in r.text, r.text
            # a token without kid is tried against the keys
            assert rpost({"jsonrpc": "2.0", "id": 3, "method": "ping"}, rs256_token("mcp_t_analyst", "a"), sa).status_code == 200
            # signed with another private key, with the right kid or none
            for bad in (rs256_token("mcp_t_analyst", "b", "a"), rs256_token("mcp_t_analyst", "b")):
                r = rpost({"jsonrpc": "2.0", "id": 4, "method": "ping"}, bad, sa)
                assert r.status_code == 401 and "signature" in r.text, (r.status_code, r.text)
            # an HS256 token (even one signed with the public key's text) is not accepted
            r = rpost({"jsonrpc": "2.0", "id": 5, "method": "ping"}, token("mcp_t_analyst"), sa)
            assert r.status_code == 401 and "RS256 expected" in r.text, (r.status_code, r.text)
            # role B's valid token cannot use role A's session
            r = rpost({"jsonrpc": "2.0", "id": 6, "method": "ping"}, rs256_token("mcp_t_guest", "a", "a"), sa)
            assert r.status_code == 404, (r.status_code, r.text)
        finally:
            p.terminate()
            p.wait(10)


def test_no_secret_in_any_response():
    assert len(SEEN) > 30, len(SEEN)
    for text in SEEN:
        for s in SECRETS:
            assert s not in text, f"secret {s[:8]}… in a response: {text[:300]}"


TESTS = [
    test_stdio_client_auto_mode_is_stateless,
    test_stdio_client_legacy_mode,
    test_stdio_session_full_surface_and_application_name,
    test_stdio_list_changed_and_reconnect,
    test_stdio_raw_protocol_errors_cancel_and_sigterm,
    test_superuser_refused_unless_allowed,
    test_http_full_surface_as_analyst,
    test_http_roles_see_different_tools,
    test_http_list_changed_over_sse,
    test_http_tokens_cannot_act_as_another_role,
    test_http_opaque_tokens,
    test_http_raw_protocol_errors,
    test_http_rs256_tokens_from_a_jwks,
    test_http_client_auto_mode_is_stateless,
    test_http_legacy_client_alongside,
    test_http_stateless_discover_and_header_checks,
    test_http_modern_client_answers_input_requests,
    test_http_legacy_client_gets_elicitation_requests,
    test_stdio_modern_client_answers_input_requests,
    test_stdio_legacy_client_gets_elicitation_requests,
    test_http_approval_of_direct_calls_in_both_eras,
    test_stdio_approval_of_a_direct_call,
    test_http_modern_client_log_level_per_request,
    test_http_modern_listen_delivers_list_changes_and_updates,
    test_http_legacy_subscribe_gets_resource_updates,
    test_http_traceparent_names_the_backend,
    test_http_chat_as_a_task_in_both_eras,
    test_stdio_modern_client_log_level_per_request,
    test_stdio_raw_session_level_and_traceparent,
    test_no_secret_in_any_response,  # last: checks what the others saw
]


def main():
    only = sys.argv[1:]
    passed = failed = 0
    for t in TESTS:
        if only and t.__name__ not in only:
            continue
        started = time.monotonic()
        try:
            if asyncio.iscoroutinefunction(t):
                asyncio.run(asyncio.wait_for(t(), 60))
            else:
                t()
            passed += 1
            print(f"ok   {t.__name__} ({time.monotonic() - started:.2f}s)", flush=True)
        except BaseException:
            failed += 1
            print(f"FAIL {t.__name__}", flush=True)
            traceback.print_exc()
    print(f"python sdk: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
