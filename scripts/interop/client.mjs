// Connects the TypeScript SDK's v2 client to an MCP endpoint, lists the
// tools and reads a file with afs_read, and prints every HTTP exchange the
// client made (method, version header, status) and what it got.
// Usage: node client.mjs ENDPOINT MODE [BEARER_TOKEN]
// MODE is the client's version negotiation: legacy (its default: initialize),
// auto (server/discover first, initialize as the fallback) or pin (2026-07-28
// only, no fallback).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [endpoint, mode, token] = process.argv.slice(2);
const who = token ? 'with a credential' : 'anonymously';
const negotiation = { legacy: undefined, auto: { mode: 'auto' }, pin: { mode: { pin: '2026-07-28' } } }[mode];

// fetch that notes each exchange before handing back the response.
const noted = async (url, init = {}) => {
  const headers = new Headers(init.headers);
  if (token) headers.set('Authorization', `Bearer ${token}`);
  const res = await fetch(url, { ...init, headers });
  let method = '';
  try { method = JSON.parse(init.body ?? '{}').method ?? ''; } catch { method = '(not JSON)'; }
  console.log(`  ${init.method ?? 'GET'} ${method} MCP-Protocol-Version=${headers.get('mcp-protocol-version') ?? '-'} -> ${res.status}`);
  return res;
};

console.log(`TypeScript SDK client, negotiation ${mode}, ${who}:`);
const client = new Client({ name: 'conform-interop', version: '1' }, negotiation ? { versionNegotiation: negotiation } : undefined);
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { fetch: noted }));
  console.log(`  connected; protocol version ${client.getNegotiatedProtocolVersion?.() ?? '(not exposed)'}`);
  const tools = await client.listTools();
  console.log(`  tools/list: ${tools.tools.map((t) => t.name).join(', ')}`);
  const read = await client.callTool({ name: 'afs_read', arguments: { path: '/public/readme.md' } });
  const text = read.content?.find((c) => c.type === 'text')?.text ?? '';
  console.log(`  afs_read: isError=${read.isError ?? false} ${JSON.stringify(text.split('\n')[0])}`);
  await client.close();
} catch (err) {
  console.log(`  FAILED: ${err?.name}: ${err?.message}`);
  process.exitCode = 1;
}
