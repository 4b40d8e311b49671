// A real OAuth 2.1 / OpenID Connect authorization server for the OAuth suite: oidc-provider
// (pinned in package-lock.json) with client credentials, the authorization code flow with PKCE
// and dynamic client registration (its development login and consent pages, which the test
// fills in as a person would), resource indicators (RFC 8707: the access token's aud is the
// resource the client asked for) and JWT access tokens (RFC 9068), signed RS256 with the keys
// in the file KEYS (private JWKs, written by test_oauth.mjs).
//   node provider.mjs PORT KEYS
// It prints "listening on <issuer>" when ready. GET /test/jwks-hits tells how often its JWKS was
// fetched (what the bridge's rate-limited key refresh is checked with).
import http from 'node:http';
import fs from 'node:fs';
import Provider from 'oidc-provider';

const [port, keysFile] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const keys = JSON.parse(fs.readFileSync(keysFile, 'utf8'));
const SCOPES = 'mcp:read mcp:write mcp:unmapped';

const provider = new Provider(issuer, {
  clients: [{
    client_id: 'mcp-agent',
    client_secret: 'mcp-agent-secret-0123456789abcdef',
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: SCOPES,
  }],
  jwks: { keys },
  scopes: ['openid', ...SCOPES.split(' ')],
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resourceIndicator) => ({
        scope: SCOPES,
        audience: resourceIndicator,
        accessTokenTTL: 300,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});

let jwksHits = 0;
provider.use(async (ctx, next) => {
  if (ctx.path === '/jwks') jwksHits += 1;
  if (ctx.path === '/test/jwks-hits') { ctx.body = { hits: jwksHits }; return; }
  await next();
});

http.createServer(provider.callback()).listen(Number(port), '127.0.0.1', () => {
  console.log(`listening on ${issuer}`);
});
