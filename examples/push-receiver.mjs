// push-receiver.mjs: an HTTP server that receives the hub's push notifications and checks each
// one's Muster-Signature (a detached JWS, EdDSA, over the exact body) against the hub's public
// keys at /.well-known/jwks.json. A verified notification is printed and answered 200; anything
// else is answered 401 and never trusted. Register its URL as a push config on a task (for
// example PUSH_URL in sender.mjs). The hub only calls https:// URLs on public addresses, unless it
// runs with MUSTER_ALLOW_PRIVATE_TARGETS=1 (local development), which lets it call this server.
//
//   MUSTER_URL=http://127.0.0.1:7420/ PORT=8787 node examples/push-receiver.mjs
//
// MUSTER_URL   the hub's base URL, where its keys are (default http://127.0.0.1:7420/)
// PORT         the port to listen on, on 127.0.0.1 (default 8787; 0 picks a free one)
import { createServer } from 'node:http';
import { base64url, createRemoteJWKSet, flattenedVerify } from 'jose';

const hub = new URL(process.env.MUSTER_URL ?? 'http://127.0.0.1:7420/');
const keys = createRemoteJWKSet(new URL('.well-known/jwks.json', hub));

/** Resolves with the signing key's id when `signature` is the hub's over exactly `body`; rejects otherwise. */
async function verify(signature, body) {
  const [protectedHeader, payload, sig, ...rest] = String(signature ?? '').split('.');
  if (!protectedHeader || payload !== '' || !sig || rest.length > 0) throw new Error('not a detached JWS');
  const { protectedHeader: header } = await flattenedVerify(
    { protected: protectedHeader, payload: base64url.encode(body), signature: sig },
    keys,
    { algorithms: ['EdDSA'] },
  );
  return header.kid;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const body = Buffer.concat(chunks); // verify the raw bytes, before parsing them
    try {
      const kid = await verify(req.headers['muster-signature'], body);
      const event = JSON.parse(body.toString('utf8'));
      const update = event.statusUpdate ?? event.artifactUpdate;
      const what = event.statusUpdate
        ? event.statusUpdate.status.state
        : `artifact ${event.artifactUpdate?.artifact?.name ?? ''}`;
      console.log(`verified (key ${kid}) task ${update?.taskId}: ${what} [delivery ${req.headers['idempotency-key']}]`);
      res.writeHead(200).end();
    } catch (e) {
      console.log(`rejected: ${e.message}`);
      res.writeHead(401).end();
    }
  });
});
server.listen(Number(process.env.PORT ?? 8787), '127.0.0.1', () => {
  console.log(`push-receiver: listening on http://127.0.0.1:${server.address().port}/`);
});
