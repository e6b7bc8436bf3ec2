package steps

import (
	"fmt"
	"net/http"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// heard is a scenario's one last reply, whatever sent the request: an MCP
// call, an OAuth endpoint, a metadata document. Every sending step sets it,
// and the core judgements (status, headers, body) read it, so that one step
// of the vocabulary judges a status wherever it came from.
type heard struct {
	status    int
	header    http.Header
	body      []byte
	json      map[string]any
	exchanges []wire.Exchange
	// mcp is the reply as MCP, when an MCP call sent the request.
	mcp *mcpclient.Reply
	// answer describes it (wire.Describe).
	answer wire.Answer
}

// hearMCP makes an MCP reply the last one.
func (st *State) hearMCP(r *mcpclient.Reply) {
	st.last = &heard{status: r.Status, header: r.Header, body: r.Body, exchanges: r.Exchanges, mcp: r, answer: r.Answer()}
}

// hearOAuth makes an OAuth endpoint's (or a document's) reply the last one.
func (st *State) hearOAuth(r *oauthclient.Reply) {
	st.last = &heard{status: r.Status, header: r.Header, body: r.Body, json: r.JSON, exchanges: []wire.Exchange{r.Exchange}, answer: r.Answer()}
}

// lastExchange is the exchange of the last reply's own request.
func (h *heard) lastExchange() wire.Exchange {
	if len(h.exchanges) == 0 {
		return wire.Exchange{}
	}
	return h.exchanges[len(h.exchanges)-1]
}

// describe says what the last reply was.
func (h *heard) describe() string { return wire.Describe(h.answer) }

// needLast returns the last reply, or the harness error of a scenario that
// judges a reply before sending anything (a bug in the feature).
func (st *State) needLast() (*heard, error) {
	if st.last == nil {
		return nil, fmt.Errorf("no reply yet: the scenario must send something before judging a reply")
	}
	return st.last, nil
}
