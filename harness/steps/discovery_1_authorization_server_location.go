package steps

import (
	"net/url"

	"github.com/conform-mcp/conform/harness/wire"
)

func (st *authzState) metadataNamesServers() error {
	d, err := st.needMetadata()
	if err != nil {
		return err
	}
	if err := st.metadataIsObject(); err != nil {
		return err
	}
	list, _ := d.object["authorization_servers"].([]any)
	for _, v := range list {
		s, ok := v.(string)
		if u, err := url.Parse(s); !ok || err != nil || u.Scheme == "" || u.Host == "" {
			return st.depart("authorization_servers", "issuer URLs", wire.JSONText(d.object["authorization_servers"]), d.ex)
		}
	}
	if len(list) == 0 {
		return st.depart("authorization_servers", "an array of at least one authorization server", wire.JSONText(d.object["authorization_servers"]), d.ex)
	}
	return nil
}
