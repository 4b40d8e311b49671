"""The official MCP Python SDK's OAuth client (mcp, pinned in tests/mcp/requirements.txt) against
pg_mcp_bridge as an OAuth resource server: client credentials, the whole discovery (the 401
challenge, the protected-resource metadata, the authorization server's metadata), the token, then
tools/list and a call that runs as the scope's role. Run by test_oauth.mjs, which started the
authorization server and the bridge: MCP_URL, ISSUER, CLIENT_ID, CLIENT_SECRET in the environment.
Prints what it saw as one JSON line; exits non-zero on a failed check."""
import asyncio
import base64
import json
import os

from mcp import ClientSession, types
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


class Memory:
    """Token storage of one run."""

    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


async def main():
    url, issuer = os.environ["MCP_URL"], os.environ["ISSUER"]
    storage = Memory()
    auth = ClientCredentialsOAuthProvider(
        server_url=url, storage=storage, client_id=os.environ["CLIENT_ID"],
        client_secret=os.environ["CLIENT_SECRET"], scope="mcp:read", issuer=issuer)
    seen = []

    async def record(request):
        seen.append(f"{request.method} {request.url}")

    async with create_mcp_http_client(auth=auth) as hc:
        hc.event_hooks["request"].append(record)
        async with streamable_http_client(url, http_client=hc) as (read, write):
            async with ClientSession(read, write, client_info=types.Implementation(name="pg-mcp-py-oauth", version="1.0")) as s:
                init = await s.initialize()
                assert init.server_info.name == "pg_mcp", init
                names = [t.name for t in (await s.list_tools()).tools]
                assert "sql_query" in names, names
                who = await s.call_tool("sql_query", {"query": "SELECT current_user AS u"})
                assert not who.is_error and "mcp_oa_reader" in who.content[0].text, who
    token = storage.tokens.access_token
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    assert claims["aud"] == url and claims["iss"] == issuer, claims
    print(json.dumps({"fetched": seen, "tools": names, "aud": claims["aud"], "scope": claims.get("scope")}))


asyncio.run(main())
