package credentials

import (
	"context"
	"errors"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/registrations"
)

// keptCodeClient is the client an earlier run registered to obtain the
// pack's tokens and kept (source 7.3: a client registers once and keeps its
// client_id).
type keptCodeClient struct {
	store *registrations.Store
	key   registrations.Key
	// id is the kept client the flow uses, until the server accepted it in
	// this run; "" when the flow uses none.
	id string
}

// use gives flow the kept client, if there is one.
func (k *keptCodeClient) use(flow *oauthclient.CodeFlow) {
	c, confirmed, ok := k.store.Get(k.key)
	if !ok {
		return
	}
	flow.ClientID, flow.Secret, flow.Method = c.ID, c.Secret, c.Method
	if !confirmed {
		k.id = c.ID
	}
}

// obtain runs the flow, keeping the client it registers. When the flow
// fails with a kept client the server has not accepted in this run, that
// client is forgotten and the flow runs once more with a new registration:
// a client the server no longer knows (source 3 removes an unused
// registration after seven days) is no verdict, only a cost. A flow a rate
// limit ended says nothing of the client, which stays kept.
func (k *keptCodeClient) obtain(ctx context.Context, flow *oauthclient.CodeFlow, issuer, resource string) (map[string]any, error) {
	before := flow.ClientID
	tok, err := flow.Obtain(ctx, issuer, resource)
	if err != nil && !errors.Is(err, oauthclient.ErrThrottled) && k.id != "" && before == k.id {
		k.store.Forget(k.key, k.id)
		k.id, flow.ClientID, flow.Secret, flow.Method = "", "", "", ""
		before = ""
		tok, err = flow.Obtain(ctx, issuer, resource)
	}
	switch {
	case before == "" && flow.ClientID != "":
		k.store.Keep(k.key, registrations.Client{ID: flow.ClientID, Secret: flow.Secret, Method: flow.Method})
	case err == nil && flow.ClientID == k.id:
		k.store.Confirm(k.key, k.id)
		k.id = ""
	}
	return tok, err
}
