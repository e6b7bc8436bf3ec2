// panva's oidc-provider (npm oidc-provider) set up as an authorization
// server for one MCP server, for scripts/realworld/go-sdk-oidc-provider.sh:
// dynamic client registration (RFC 7591), PKCE (S256, required of public
// clients, the provider's default), resource indicators (RFC 8707) for the
// MCP endpoint and one other resource, introspection (RFC 7662) for the MCP
// server, refresh tokens for clients registered for them, and an interaction
// that signs in one fixed account and grants what is asked without a page:
// the person at the authorization endpoint, approving everything.
//
// Environment: ISSUER (http://localhost:PORT), PORT, RESOURCE (the MCP
// endpoint), OTHER_RESOURCE, SCOPE (the resource's scopes),
// INTROSPECTION_SECRET (the MCP server's client secret).
import http from 'node:http';
import Provider, { errors } from 'oidc-provider';

const { ISSUER, PORT, RESOURCE, OTHER_RESOURCE, SCOPE, INTROSPECTION_SECRET } = process.env;
const resources = new Set([RESOURCE, OTHER_RESOURCE]);
const account = 'conform-user';

const provider = new Provider(ISSUER, {
  clients: [{
    client_id: 'mcp-server',
    client_secret: INTROSPECTION_SECRET,
    grant_types: [],
    response_types: [],
    redirect_uris: [],
  }],
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // A refresh or code redemption without resource stays with the one
      // granted (RFC 8707 2.2).
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator) => {
        if (!resources.has(indicator)) throw new errors.InvalidTarget(`${indicator} is not a resource this server issues tokens for`);
        return { scope: SCOPE, audience: indicator, accessTokenFormat: 'opaque', accessTokenTTL: 300 };
      },
    },
  },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
});
provider.proxy = false;

// approve finishes whichever prompt the interaction is at: a sign-in as the
// fixed account, or a consent granting every scope and resource asked for.
async function approve(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params } = details;
  if (prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: params.client_id });
  const missing = prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
http.createServer((req, res) => {
  if (req.url.startsWith('/interaction/')) {
    approve(req, res).catch((err) => {
      res.statusCode = 500;
      res.end(String(err));
    });
    return;
  }
  callback(req, res);
}).listen(Number(PORT), '127.0.0.1');
