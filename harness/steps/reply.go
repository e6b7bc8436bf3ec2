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

// took records a reply; a transport failure is the host's (it did not answer).
func (st *State) took(r *mcpclient.Reply, err error) error {
	if err != nil {
		if lost := st.stopped(err); lost != nil {
			return lost
		}
		if r != nil && len(r.Exchanges) > 0 {
			return st.depart("an HTTP response", "a response", err.Error(), r.Exchanges...)
		}
		return st.depart("an HTTP response", "a response from "+st.Target.Profile.Target, err.Error())
	}
	if why := r.ProtocolRefusal(); why != "" {
		// A refusal for the base protocol says the harness and the host
		// disagree on the MCP revision, not how the host treats the request
		// the scenario is about (MCP 2026-07-28, transport "Server
		// Validation" and "Protocol Version Header").
		return st.skip(fmt.Sprintf("the host refused the request for the base protocol, not for what this scenario checks: %s; "+
			"the suite spoke MCP %s (set mcp_revision to pin another)", why, revisionOrNone(st.MCP.Revision())))
	}
	st.answered()
	st.reply = r
	st.hearMCP(r)
	return nil
}

// revisionOrNone names a revision, or says none was learned.
func revisionOrNone(r string) string {
	if r == "" {
		return "2026-07-28 first (no reply has shown which revision the host speaks)"
	}
	return r
}

// describe says in a few words what a reply was, for "actual".
func describe(r *mcpclient.Reply) string {
	if r == nil {
		return "no reply"
	}
	return wire.Describe(r.Answer())
}

func (st *State) needReply() error {
	if st.reply == nil {
		return fmt.Errorf("no MCP reply yet: the scenario must send something before judging a reply")
	}
	return nil
}
