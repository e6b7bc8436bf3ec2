package steps

import (
	"context"
	"fmt"
	"sync"
)

// credentialWatch is what the run saw of the target's credential before any
// scenario authorized a client: whether the server served the request that
// needs authorization with it. A credential served then and refused later
// stopped working mid-run: an authorization server may revoke a client's
// earlier tokens when the same client is authorized again (issue 21's real
// servers did, by their documented default), or the token may have expired.
// Either way, no scenario that presents it says anything of the server then.
type credentialWatch struct {
	once   sync.Once
	served bool
}

// watchCredential asks, once per run, whether the server serves the request
// that needs authorization with the target's credential. It runs with the
// run's check that the server implements MCP authorization, before the
// first scenario that authorizes a client.
func (st *authzState) watchCredential(ctx context.Context) {
	w := &st.Suite.credential
	w.once.Do(func() {
		if st.Target.Credential == "" {
			return
		}
		r := st.protected()
		reply, err := st.MCP.Call(ctx, "Bearer "+st.Target.Credential, r.Method, st.protectedParams(r))
		w.served = err == nil && reply.Status/100 == 2
	})
}

// credentialDied says, when the target's credential was served at the
// run's start and got answer now, that it stopped working mid-run; "" when
// it was not served then.
func (st *authzState) credentialDied(answer string) string {
	if !st.Suite.credential.served {
		return ""
	}
	return fmt.Sprintf("the target's credential, served the request that needs authorization at the start of the run, now gets %s: it stopped working mid-run, "+
		"so this scenario says nothing of the server; an authorization server may revoke a client's earlier tokens when the same client is authorized again, "+
		"which the run's scenarios do with mcp_authorization.client_id (or the client they register): give the run a credential of another client, "+
		"or one that does not expire during the run", answer)
}
