package fakehost

import (
	"net/http"

	"github.com/conform-mcp/conform/harness/fakeprotocol"
)

// protocol is the revision check of the Modern and Older modes, made after
// the gates: the source fixes gate order (5.6) and the transport fixes no
// order between its header checks and a host's authorization, so a host may
// refuse an anonymous privileged call with the 401 before it reads the
// headers. nil lets the request go on.
func (h *Host) protocol(r *http.Request, req request) *fakeprotocol.Refusal {
	switch h.opts.Mode {
	case Modern:
		return fakeprotocol.CheckModern(r, req.Method, req.ID, req.Params)
	case Older:
		return fakeprotocol.CheckOlder(r)
	}
	return nil
}
